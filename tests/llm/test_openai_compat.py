"""The OpenAI-compatible provider through the real `openai` SDK against the fake server."""

from __future__ import annotations

import json
from collections.abc import Callable

from openai.types.chat import ChatCompletionChunk

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
from karyi.llm.openai_compat import ChunkReader
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Call, Reply
from tests.support.streams import collect

MakeProvider = Callable[..., Provider]
HELLO = Request([Message("user", "hello")])


async def test_streams_thinking_text_usage_and_finish(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script(
        Reply(text=["Hel", "lo!"], thinking=["Let me ", "think."], input_tokens=20, cached_tokens=4)
    )
    events = await collect(make_provider("openai"), HELLO)
    assert events == [
        ThinkingChunk("Let me "),
        ThinkingChunk("think."),
        TextChunk("Hel"),
        TextChunk("lo!"),
        Usage(input_tokens=20, output_tokens=7, cache_read_tokens=4),
        Finish("stop"),
    ]


async def test_native_tool_calls_stream_per_index_with_interleaved_fragments(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    read = Call("read_file", id="call_a", fragments=['{"pa', 'th": "a', '.py"}'])
    grep = Call("grep", id="call_b", fragments=['{"pattern"', ': "TODO"}'])
    fake_llm.script(Reply(text="Looking.", calls=[read, grep], interleave=True))
    events = await collect(make_provider("openai"), HELLO)
    assert events == [
        TextChunk("Looking."),
        ToolCallChunk(0, id="call_a", name="read_file"),
        ToolCallChunk(1, id="call_b", name="grep"),
        ToolCallChunk(0, arguments='{"pa'),
        ToolCallChunk(1, arguments='{"pattern"'),
        ToolCallChunk(0, arguments='th": "a'),
        ToolCallChunk(1, arguments=': "TODO"}'),
        ToolCallChunk(0, arguments='.py"}'),
        ToolCallEnd(0),
        ToolCallEnd(1),
        Usage(11, 7, 0),
        Finish("tool_calls"),
    ]
    for slot, expected in [(0, {"path": "a.py"}), (1, {"pattern": "TODO"})]:
        text = "".join(
            e.arguments for e in events if isinstance(e, ToolCallChunk) and e.slot == slot
        )
        assert json.loads(text) == expected


async def test_messages_and_tools_are_sent_in_openai_shapes(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script("done")
    tool = {"name": "read_file", "description": "Read a file", "parameters": {"type": "object"}}
    request = Request(
        [
            Message("system", "You are Karyi."),
            Message("user", "Read a.py"),
            Message(
                "assistant", "", tool_calls=(NativeCall("c1", "read_file", '{"path":"a.py"}'),)
            ),
            Message("tool", "no such file", tool_call_id="c1", name="read_file", is_error=True),
            Message("user", "try b.py", name="ana"),
        ],
        tools=[tool],
        stop=["</tools>"],
        max_tokens=100,
        temperature=0.2,
        extra={"seed": 7},
    )
    await collect(make_provider("openai"), request)
    [received] = fake_llm.requests
    assert received.path == "/v1/chat/completions"
    assert received.headers["authorization"] == "Bearer sk-test"
    assert received.body == {
        "model": "fake-model",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [
            {"role": "system", "content": "You are Karyi."},
            {"role": "user", "content": "Read a.py"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path":"a.py"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "no such file"},
            {"role": "user", "content": "try b.py", "name": "ana"},
        ],
        "tools": [{"type": "function", "function": tool}],
        "stop": ["</tools>"],
        "max_tokens": 100,
        "temperature": 0.2,
        "seed": 7,
    }


async def test_openai_itself_gets_max_completion_tokens(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script("ok")
    provider = make_provider("openai", max_tokens_field="max_completion_tokens")
    await collect(provider, Request([Message("user", "hi")], max_tokens=50))
    assert fake_llm.requests[0].body["max_completion_tokens"] == 50
    assert "max_tokens" not in fake_llm.requests[0].body


async def test_finish_reasons_pass_through(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script(Reply(text="cut", finish="length"))
    events = await collect(make_provider("openai"), HELLO)
    assert events[-1] == Finish("length")


async def test_servers_that_omit_the_call_index_get_one_slot_per_call_id(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    calls = [Call("f", id="a", fragments=["{}"]), Call("g", id="b", fragments=["{", "}"])]
    fake_llm.script(Reply(calls=calls, finish="stop", omit_index=True))
    events = await collect(make_provider("openai"), HELLO)
    assert events == [
        ToolCallChunk(0, id="a", name="f"),
        ToolCallChunk(0, arguments="{}"),
        ToolCallChunk(1, id="b", name="g"),
        ToolCallChunk(1, arguments="{"),
        ToolCallChunk(1, arguments="}"),
        ToolCallEnd(0),
        ToolCallEnd(1),
        Usage(11, 7, 0),
        Finish("tool_calls"),  # these servers also say `stop` after calls
    ]


def _chunk(delta: dict[str, object]) -> ChatCompletionChunk:
    choice = {"index": 0, "delta": delta, "finish_reason": None}
    body = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return ChatCompletionChunk.model_validate(body | {"choices": [choice]})


def test_reasoning_field_of_other_servers_is_thinking() -> None:
    reader = ChunkReader("vllm:m")
    events = reader.read(_chunk({"reasoning": "hmm"})) + reader.read(_chunk({"content": "A"}))
    assert events == [ThinkingChunk("hmm"), TextChunk("A")]
