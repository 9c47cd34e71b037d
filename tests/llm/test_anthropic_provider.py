"""The Anthropic provider through the real `anthropic` SDK against the fake server."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from karyi.llm.anthropic_api import anthropic_messages, default_max_tokens
from karyi.llm.base import (
    Finish,
    Message,
    NativeCall,
    Provider,
    Request,
    TextChunk,
    ThinkingChunk,
    ToolCallChunk,
    ToolCallEnd,
    Usage,
)
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Call, Reply
from tests.support.streams import collect

MakeProvider = Callable[..., Provider]
HELLO = Request([Message("user", "hello")])


async def test_streams_thinking_text_usage_and_stop_reason(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script(
        Reply(text=["Hel", "lo!"], thinking=["Let me ", "think."], input_tokens=20, cached_tokens=4)
    )
    events = await collect(make_provider("anthropic"), HELLO)
    assert events == [
        ThinkingChunk("Let me "),
        ThinkingChunk("think."),
        TextChunk("Hel"),
        TextChunk("lo!"),
        # input = uncached 20 + cache reads 4, as OpenAI counts prompt_tokens
        Usage(input_tokens=24, output_tokens=7, cache_read_tokens=4),
        Finish("stop"),
    ]


async def test_tool_use_blocks_stream_in_their_block_slot(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    read = Call("read_file", id="toolu_a", fragments=['{"pa', 'th": "a.py"}'])
    grep = Call("grep", id="toolu_b", fragments=['{"pattern": "TODO"}'])
    fake_llm.script(Reply(text="Looking.", calls=[read, grep]))
    events = await collect(make_provider("anthropic"), HELLO)
    assert events == [
        TextChunk("Looking."),
        ToolCallChunk(1, id="toolu_a", name="read_file"),
        ToolCallChunk(1, arguments='{"pa'),
        ToolCallChunk(1, arguments='th": "a.py"}'),
        ToolCallEnd(1),
        ToolCallChunk(2, id="toolu_b", name="grep"),
        ToolCallChunk(2, arguments='{"pattern": "TODO"}'),
        ToolCallEnd(2),
        Usage(11, 7, 0),
        Finish("tool_calls"),
    ]


@pytest.mark.parametrize(("finish", "expected"), [("length", "length"), ("refusal", "refusal")])
async def test_stop_reasons_are_translated(
    fake_llm: FakeModelServer, make_provider: MakeProvider, finish: str, expected: str
) -> None:
    fake_llm.script(Reply(text="x", finish=finish))
    events = await collect(make_provider("anthropic"), HELLO)
    assert events[-1] == Finish(expected)


async def test_messages_are_sent_in_anthropic_shapes(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script("done")
    tool = {"name": "read_file", "description": "Read a file", "parameters": {"type": "object"}}
    request = Request(
        [
            Message("system", "You are Karyi."),
            Message("system", "Workspace: /p"),
            Message("user", "Read a.py and b.py"),
            Message(
                "assistant",
                "Reading both.",
                tool_calls=(
                    NativeCall("t1", "read_file", '{"path": "a.py"}'),
                    NativeCall("t2", "read_file", '{"path": '),  # the model broke its JSON
                ),
            ),
            Message("tool", "print('a')", tool_call_id="t1"),
            Message("tool", "invalid arguments", tool_call_id="t2", is_error=True),
            Message("user", "Also note b.py changed."),
        ],
        tools=[tool],
        stop=["</tools>"],
        temperature=0.0,
        extra={"thinking": {"type": "enabled", "budget_tokens": 2048}},
    )
    await collect(make_provider("anthropic", model="claude-test"), request)
    [received] = fake_llm.requests
    assert received.path == "/v1/messages"
    assert received.headers["authorization"] == "Bearer sk-test"  # this SDK's way with api_key
    assert "anthropic-version" in received.headers
    assert received.body == {
        "model": "claude-test",
        "max_tokens": 16384,
        "stream": True,
        "system": "You are Karyi.\n\nWorkspace: /p",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Read a.py and b.py"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Reading both."},
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "read_file",
                        "input": {"path": "a.py"},
                    },
                    {"type": "tool_use", "id": "t2", "name": "read_file", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "print('a')"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "t2",
                        "content": "invalid arguments",
                        "is_error": True,
                    },
                    {"type": "text", "text": "Also note b.py changed."},
                ],
            },
        ],
        "tools": [
            {"name": "read_file", "description": "Read a file", "input_schema": {"type": "object"}}
        ],
        "stop_sequences": ["</tools>"],
        "temperature": 0.0,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
    }


def test_consecutive_same_role_messages_merge_with_tool_results_first() -> None:
    system, messages = anthropic_messages(
        [
            Message("user", "first"),
            Message("user", "second"),
            Message("assistant", "   "),  # whitespace only: nothing to send
            Message("assistant", "", tool_calls=(NativeCall("t", "f", "{}"),)),
            Message("user", "a note before the result"),
            Message("tool", "", tool_call_id="t"),
            Message("system", "a note from the agent, mid-conversation"),
        ]
    )
    assert system == ""
    assert messages == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}],
        },
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t"},
                {"type": "text", "text": "a note before the result"},
                {"type": "text", "text": "a note from the agent, mid-conversation"},
            ],
        },
    ]


def test_max_tokens_default_fits_the_model() -> None:
    assert default_max_tokens("claude-3-haiku-20240307") == 4096
    assert default_max_tokens("claude-3-5-sonnet-latest") == 8192
    assert default_max_tokens("claude-sonnet-4-5") == 16384
