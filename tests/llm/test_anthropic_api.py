"""The Anthropic provider through the real `anthropic` SDK against the fake server."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from karyi.llm.anthropic_api import anthropic_messages, default_max_tokens, messages_body
from karyi.llm.base import (
    Finish,
    Message,
    NativeCall,
    Provider,
    ReasoningBlock,
    Request,
    TextChunk,
    ThinkingChunk,
    ToolCallChunk,
    ToolCallEnd,
    Usage,
)
from karyi.llm.endpoint import Endpoint
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Call, Reply, thinking_signature
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
        ReasoningBlock(
            {
                "type": "thinking",
                "thinking": "Let me think.",
                "signature": thinking_signature("Let me think."),
            }
        ),
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
        extra={"metadata": {"user_id": "u-1"}},
    )
    await collect(make_provider("anthropic", model="claude-test", prompt_caching=False), request)
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
        "metadata": {"user_id": "u-1"},
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


# -- extended thinking ---------------------------------------------------------------------


async def test_a_thinking_block_is_handed_back_whole_with_its_signature(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script(
        Reply(
            thinking=["Read it ", "first."],
            redacted="ENCRYPTED==",
            calls=[Call("read_file", {"path": "a.py"}, id="toolu_1")],
        )
    )
    events = await collect(make_provider("anthropic", thinking_budget=2048), HELLO)
    blocks = [e for e in events if isinstance(e, ReasoningBlock)]
    assert blocks == [
        ReasoningBlock(
            {
                "type": "thinking",
                "thinking": "Read it first.",
                "signature": thinking_signature("Read it first."),
            }
        ),
        ReasoningBlock({"type": "redacted_thinking", "data": "ENCRYPTED=="}),
    ]
    # each block is complete before the tool call that follows it starts
    first_call = next(i for i, e in enumerate(events) if isinstance(e, ToolCallChunk))
    assert events.index(blocks[1]) < first_call
    assert fake_llm.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_reasoning_goes_back_first_in_its_assistant_message() -> None:
    thought = {"type": "thinking", "thinking": "Hm.", "signature": "c2ln"}
    _, messages = anthropic_messages(
        [
            Message("user", "fix it"),
            Message(
                "assistant",
                "Reading.",
                tool_calls=(NativeCall("t1", "read_file", "{}"),),
                reasoning=(thought,),
            ),
            Message("tool", "x = 1", tool_call_id="t1"),
        ]
    )
    assert [b["type"] for b in messages[1]["content"]] == ["thinking", "text", "tool_use"]
    assert messages[1]["content"][0] == thought


def test_a_thinking_budget_leaves_room_to_answer_and_drops_temperature() -> None:
    endpoint = Endpoint(model="claude-sonnet-4-5", api_key="k", label="anthropic:x")
    request = Request([Message("user", "hi")], max_tokens=4096, temperature=0.2)
    assert messages_body(request, endpoint)["temperature"] == 0.2
    thinking = Endpoint(
        model="claude-sonnet-4-5", api_key="k", label="anthropic:x", thinking_budget=10_000
    )
    body = messages_body(request, thinking)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 10_000}
    assert body["max_tokens"] > 10_000 and "temperature" not in body


def test_prompt_caching_marks_the_system_prompt_and_the_last_two_user_messages() -> None:
    request = Request(
        [
            Message("system", "You are Karyi."),
            Message("user", "Read a.py"),
            Message("assistant", "", tool_calls=(NativeCall("t1", "read_file", "{}"),)),
            Message("tool", "print('a')", tool_call_id="t1"),
            Message("assistant", "", tool_calls=(NativeCall("t2", "read_file", "{}"),)),
            Message("tool", "print('b')", tool_call_id="t2"),
        ]
    )
    endpoint = Endpoint(model="claude-sonnet-4-5", api_key="k", label="anthropic:x")
    body = messages_body(request, endpoint)
    ephemeral = {"type": "ephemeral"}
    assert body["system"] == [
        {"type": "text", "text": "You are Karyi.", "cache_control": ephemeral}
    ]
    marked = [
        (i, b["type"])
        for i, m in enumerate(body["messages"])
        for b in m["content"]
        if b.get("cache_control") == ephemeral
    ]
    assert marked == [(2, "tool_result"), (4, "tool_result")]  # the last two user messages
    assert "cache_control" not in body["messages"][0]["content"][-1]
    plain = messages_body(
        request, Endpoint(model="m", api_key="k", label="x", prompt_caching=False)
    )
    assert plain["system"] == "You are Karyi." and "cache_control" not in json.dumps(plain)


async def test_a_cached_request_goes_out_marked_and_cache_reads_count_as_input(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script(Reply(text="ok", input_tokens=100, cached_tokens=2000))
    request = Request([Message("system", "You are Karyi."), Message("user", "hello")])
    events = await collect(make_provider("anthropic"), request)
    assert Usage(input_tokens=2100, output_tokens=7, cache_read_tokens=2000) in events
    body = fake_llm.requests[0].body
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][0]["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_a_tool_loop_whose_thinking_block_was_lost_goes_on_without_thinking() -> None:
    endpoint = Endpoint(model="claude-sonnet-4-5", api_key="k", label="x", thinking_budget=4096)
    lost = Request(
        [
            Message("user", "fix it"),
            Message("assistant", "", tool_calls=(NativeCall("t1", "read_file", "{}"),)),
            Message("tool", "x = 1", tool_call_id="t1"),
        ]
    )
    assert "thinking" not in messages_body(lost, endpoint)
    thought = {"type": "thinking", "thinking": "Hm.", "signature": "c2ln"}
    kept = Request(
        [
            Message("user", "fix it"),
            Message(
                "assistant",
                "",
                tool_calls=(NativeCall("t1", "read_file", "{}"),),
                reasoning=(thought,),
            ),
            Message("tool", "x = 1", tool_call_id="t1"),
        ]
    )
    assert messages_body(kept, endpoint)["thinking"]["budget_tokens"] == 4096
    assert messages_body(Request([Message("user", "hi")]), endpoint)["thinking"]
