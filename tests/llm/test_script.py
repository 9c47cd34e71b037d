"""The `script:FILE` replay: its format, its label, divergence, running out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from karyi.llm.base import (
    Finish,
    Message,
    ProviderError,
    Request,
    Retrying,
    TextChunk,
    ThinkingChunk,
    ToolCallChunk,
    ToolCallEnd,
    Usage,
)
from karyi.llm.script import ScriptProvider, load_script, parse_script
from tests.support.streams import Sleeps, collect, text_of

DOCS = Path(__file__).resolve().parents[2] / "docs" / "script-format.md"


def provider(text: str, sleeps: Sleeps | None = None) -> ScriptProvider:
    return ScriptProvider(parse_script(text, "demo.yaml"), sleep=sleeps or Sleeps())


def ask(text: str) -> Request:
    return Request([Message("system", "rules"), Message("user", text)])


async def test_replies_play_in_order_in_small_chunks() -> None:
    script = provider(
        """
chunk: 4
replies:
  - thinking: Read first.
    text: Let me look.
    usage: {input: 100, output: 9, cached: 40}
  - text: [Done, "!"]
"""
    )
    assert script.label == "script:demo.yaml (replay)"
    assert await collect(script, ask("fix it")) == [
        ThinkingChunk("Read"),
        ThinkingChunk(" fir"),
        ThinkingChunk("st."),
        TextChunk("Let "),
        TextChunk("me l"),
        TextChunk("ook."),
        Usage(100, 9, 40),
        Finish("stop"),
    ]
    events = await collect(script, ask("next"))
    assert events[:2] == [TextChunk("Done"), TextChunk("!")]
    assert events[-1] == Finish("stop")


async def test_native_tool_calls_and_estimated_usage() -> None:
    script = provider(
        """
replies:
  - text: Reading.
    tool_calls:
      - {name: read_file, arguments: {path: a.py}}
      - {name: grep, id: g1, arguments: '{"pattern": "x"}'}
"""
    )
    events = await collect(script, Request([Message("user", "x" * 400)]))
    assert events == [
        TextChunk("Reading."),
        ToolCallChunk(0, id="call_1_0", name="read_file"),
        ToolCallChunk(0, arguments='{"path": "a.'),
        ToolCallChunk(0, arguments='py"}'),
        ToolCallEnd(0),
        ToolCallChunk(1, id="g1", name="grep"),
        ToolCallChunk(1, arguments='{"pattern": '),
        ToolCallChunk(1, arguments='"x"}'),
        ToolCallEnd(1),
        Usage(100, 2, 0),  # estimated at four characters per token
        Finish("tool_calls"),
    ]


async def test_a_list_of_strings_is_a_script_too_and_delay_paces_the_chunks() -> None:
    sleeps = Sleeps()
    script = ScriptProvider(parse_script("[hello]", "s.yaml"), sleep=sleeps)
    assert text_of(await collect(script, ask("hi"))) == "hello"
    assert sleeps.delays == []
    paced = provider("{delay: 0.05, chunk: 2, replies: [abcd]}", sleeps)
    await collect(paced, ask("hi"))
    assert sleeps.delays == [0.05, 0.05]


async def test_expect_notices_when_the_conversation_diverged() -> None:
    script = provider(
        """
replies:
  - expect: fix the bug
    text: On it.
  - expect: [exit code 0, passed]
    text: Tests pass.
"""
    )
    assert text_of(await collect(script, ask("please fix the bug in convert.py"))) == "On it."
    tool_turn = [
        *ask("fix the bug").messages,
        Message("assistant", "", tool_calls=()),
        Message("tool", "exit code 1: 2 failed", tool_call_id="c1"),
    ]
    with pytest.raises(ProviderError) as caught:
        await collect(script, Request(tool_turn))
    assert caught.value.kind == "config"
    assert caught.value.message == (
        "script demo.yaml: the conversation diverged from the recording: reply 2 expects "
        "the latest messages to contain 'exit code 0', but they were: 'exit code 1: 2 failed'"
    )


async def test_running_out_is_a_clear_error() -> None:
    script = provider("replies: [only one]")
    await collect(script, ask("a"))
    with pytest.raises(ProviderError) as caught:
        await collect(script, ask("b"))
    assert (caught.value.kind, caught.value.retryable) == ("config", False)
    assert caught.value.message == (
        "script demo.yaml: the replay is over: the script has 1 reply and the agent asked "
        "for reply 2 (the conversation went further than the recording)"
    )


async def test_scripted_errors_replay_faults() -> None:
    script = provider(
        """
replies:
  - error: {kind: rate_limit, message: slow down}
  - text: after the retry
  - text: half a reply
    error: {kind: connection, message: reset}
"""
    )
    events = await collect(script, ask("a"))
    assert events[0] == Retrying(1, 0.1, "script:demo.yaml (replay): slow down")
    assert text_of(events) == "after the retry"
    with pytest.raises(ProviderError) as caught:
        await collect(script, ask("b"))
    assert (caught.value.kind, caught.value.partial, caught.value.retryable) == (
        "connection",
        True,
        True,
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("replies: [{txt: hi}]", "replies[0]: unknown field 'txt'; expected only: error, expect"),
        ("replies: [{tool_calls: [{arguments: {}}]}]", "missing required field 'name'"),
        ("replies: [{text: [a, 1]}]", "replies[0]: text[1]: expected string, got integer 1"),
        ("{replies: [x], chunk: 0}", "chunk: 0 is less than the minimum of 1"),
        ("replies: [{tool_calls: [{name: f, arguments: '{'}]}]", "arguments are not valid JSON"),
        ("replies: [\n  - a\n  b", "not valid YAML at line 2 column 3"),
        ("just text", "expected a mapping with `replies`, or a list of replies"),
    ],
)
def test_format_errors_say_where(text: str, message: str) -> None:
    with pytest.raises(ProviderError) as caught:
        parse_script(text, "bad.yaml")
    assert caught.value.kind == "config"
    assert caught.value.message.startswith("script bad.yaml: ")
    assert message in caught.value.message


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ProviderError) as caught:
        load_script(tmp_path / "nope.yaml")
    assert (
        caught.value.message
        == f"script {tmp_path / 'nope.yaml'}: cannot read it: No such file or directory"
    )


async def test_the_documented_example_is_a_valid_script() -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS.read_text(), re.S)
    assert blocks, "docs/script-format.md shows an example"
    script = ScriptProvider(parse_script(blocks[0], "example.yaml"), sleep=Sleeps())
    first = await collect(script, ask("The test for convert.py fails; fix the bug."))
    assert isinstance(first[-1], Finish)
