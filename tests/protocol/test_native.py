"""`native`: provider function calling assembled from streamed fragments."""

from __future__ import annotations

import json
from typing import Any

import pytest

from karyi.protocol import (
    CallOutcome,
    CallReady,
    CallStarted,
    DialectState,
    ParseEvent,
    TextDelta,
    ToolCall,
    get_dialect,
)
from karyi.protocol.native import Native, NativeParser, parse_message

from ._helpers import calls, named, texts


def native(state: DialectState | None = None) -> NativeParser:
    parser = get_dialect("native").parser(state=state)
    assert isinstance(parser, NativeParser)
    return parser


def summary(events: list[ParseEvent]) -> list[tuple[Any, ...]]:
    return [(c.index, c.id, c.name, c.params, c.error, c.error_code) for c in calls(events)]


def test_text_passes_through_unchanged() -> None:
    p = native()
    chunks = ["Hel", "lo <tools> & ", "", "<tool_call>", " 😀\n"]
    events = [e for c in chunks for e in p.feed(c)] + p.close()
    assert events == [TextDelta(c) for c in chunks if c]


def test_openai_slots_in_order_and_early_completion() -> None:
    p = native()
    events = p.feed_call(0, call_id="c0", name="read_file", arguments='{"path": ')
    events += p.feed_call(0, arguments='"a.py"}')
    assert calls(events) == []
    opened = p.feed_call(1, call_id="c1", name="grep", arguments='{"pattern": "x"}')
    assert summary(opened) == [(0, "c0", "read_file", {"path": "a.py"}, None, "")]
    assert [e for e in opened if isinstance(e, CallStarted)] == [CallStarted(1, "grep")]
    rest = p.close()
    assert summary(rest) == [(1, "c1", "grep", {"pattern": "x"}, None, "")]


def test_a_name_streamed_in_pieces_is_announced_whole() -> None:
    p = native()
    events = p.feed_call(0, call_id="c0", name="rea")
    events += p.feed_call(0, name="d_file")
    events += p.feed_call(0, arguments='{"path": "a.py"}')
    events += p.close()
    assert [e for e in events if isinstance(e, CallStarted)] == [CallStarted(0, "read_file")]
    assert summary(events) == [(0, "c0", "read_file", {"path": "a.py"}, None, "")]


def test_a_call_without_arguments_is_announced_when_it_ends() -> None:
    p = native()
    events = p.feed_call(0, call_id="t0", name="list_tools")
    assert events == []
    events = p.end_call(0)
    assert [type(e).__name__ for e in events] == ["CallStarted", "CallReady"]


def test_several_slots_in_one_chunk_and_text_between() -> None:
    p = native()
    events = p.feed("A")
    events += p.feed_call(0, call_id="c0", name="f", arguments="{}")
    events += p.feed_call(1, call_id="c1", name="g", arguments="{}")
    events += p.feed_call(2, call_id="c2", name="h", arguments='{"x": 1}')
    events += p.feed("B")
    events += p.close()
    assert [type(e).__name__ for e in events] == [
        "TextDelta",
        "CallStarted",
        "CallReady",
        "CallStarted",
        "CallReady",
        "CallStarted",
        "TextDelta",
        "CallReady",
    ]
    assert summary(events) == [
        (0, "c0", "f", {}, None, ""),
        (1, "c1", "g", {}, None, ""),
        (2, "c2", "h", {"x": 1}, None, ""),
    ]
    assert texts(events) == {"text": "AB"}


def test_anthropic_blocks_end_with_end_call() -> None:
    p = native()
    events = p.feed("Thinking aloud. ")  # content block 0
    events += p.feed_call(1, call_id="toolu_1", name="read_file")
    events += p.feed_call(1, arguments='{"path"')
    events += p.feed_call(1, arguments=': "a"}')
    first = p.end_call(1)
    assert summary(first) == [(0, "toolu_1", "read_file", {"path": "a"}, None, "")]
    events += first + p.feed_call(2, call_id="toolu_2", name="ls", arguments="")
    second = p.end_call(2)
    assert summary(second) == [(1, "toolu_2", "ls", {}, None, "")]
    assert p.end_call(2) == [] and p.end_call(7) == [] and p.close() == []


def test_interleaved_slots_each_keep_their_own_arguments() -> None:
    """Slots opened out of order: indexes follow the order in which calls began."""
    p = native()
    events = p.feed_call(2, call_id="b", name="g")
    events += p.end_call(2)
    events += p.feed_call(1, call_id="a", name="f", arguments='{"n": 1}')
    events += p.close()
    assert summary(events) == [(0, "b", "g", {}, None, ""), (1, "a", "f", {"n": 1}, None, "")]
    assert [(e.index, e.name) for e in events if isinstance(e, CallStarted)] == [(0, "g"), (1, "f")]


def test_late_fragment_for_a_finished_slot_is_an_error_not_a_crash() -> None:
    """A fragment for slot 0 after slot 1 opened (slot 0 was completed by then)."""
    p = native()
    events = p.feed_call(0, call_id="a", name="f", arguments="{}")
    events += p.feed_call(1, call_id="b", name="g", arguments="{}")
    events += p.feed_call(0, arguments='{"late": 1}')
    events += p.close()
    got = summary(events)
    assert got[:2] == [(0, "a", "f", {}, None, ""), (1, "b", "g", {}, None, "")]
    assert len(got) == 3 and got[2][2] == "" and got[2][5] == "malformed_call"
    for e in events:  # CallStarted and CallReady agree on every index
        if isinstance(e, CallStarted):
            assert [c.name for c in calls(events) if c.index == e.index] == [e.name]


def test_a_new_id_in_the_same_slot_starts_a_new_call() -> None:
    """Some OpenAI-compatible servers (Ollama, some proxies) send every call in slot 0."""
    p = native()
    events = p.feed_call(0, call_id="c1", name="write", arguments='{"p": ')
    events += p.feed_call(0, arguments='"a"}')
    events += p.feed_call(0, call_id="c2", name="write", arguments='{"p": "b"}')
    events += p.close()
    assert summary(events) == [
        (0, "c1", "write", {"p": "a"}, None, ""),
        (1, "c2", "write", {"p": "b"}, None, ""),
    ]


def test_repeating_the_same_id_and_name_continues_the_call() -> None:
    p = native()
    events = p.feed_call(0, call_id="c1", name="f", arguments='{"a"')
    events += p.feed_call(0, call_id="c1", name="f", arguments=": 1}")
    events += p.close()
    assert summary(events) == [(0, "c1", "f", {"a": 1}, None, "")]


def test_name_streamed_in_pieces() -> None:
    p = native()
    events = p.feed_call(0, call_id="c", name="read")
    events += p.feed_call(0, name="_file", arguments="{}")
    events += p.close()
    assert summary(events) == [(0, "c", "read_file", {}, None, "")]


def test_missing_id_gets_a_session_unique_one() -> None:
    state = DialectState()
    p = native(state)
    events = p.feed_call(0, name="f") + p.feed_call(1, name="g") + p.close()
    q = native(state)
    events += q.feed_call(0, name="h") + q.close()
    assert [c.id for c in calls(events)] == ["call_1", "call_2", "call_3"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ('{"a": ', "f: arguments are not valid JSON (Expecting value at line 1 column 7)"),
        ("{'a': 1}", "f: arguments are not valid JSON (Expecting property name enclosed in double"),
        ("[1, 2]", "f: arguments must be a JSON object, got list"),
        ('"s"', "f: arguments must be a JSON object, got str"),
        ("null", "f: arguments must be a JSON object, got NoneType"),
        ('{"n": ' + "9" * 5000 + "}", "f: arguments are not valid JSON (an integer of 5000 digits"),
        ("[" * 100_000 + "]" * 100_000, "f: arguments are not valid JSON (nested more than 200"),
        ('{"a": ' + "[" * 300 + "]" * 300 + "}", "f: arguments are not valid JSON (nested more"),
    ],
)
def test_invalid_arguments_are_an_error_call(arguments: str, message: str) -> None:
    p = native()
    events = p.feed_call(0, call_id="c", name="f", arguments=arguments) + p.close()
    [call] = calls(events)
    assert (call.name, call.params, call.error_code, call.raw) == (
        "f",
        {},
        "malformed_call",
        arguments,
    )
    assert call.error is not None and call.error.startswith(message), call.error


def test_tolerated_argument_slips() -> None:
    p = native()
    events = p.feed_call(0, call_id="a", name="f", arguments='{"x": [1, 2,],}')
    events += p.feed_call(1, call_id="b", name="g", arguments='```json\n{"y": 1}\n```')
    events += p.feed_call(2, call_id="c", name="h", arguments="  ")
    events += p.close()
    assert named(events) == [("f", {"x": [1, 2]}), ("g", {"y": 1}), ("h", {})]


def test_call_without_name() -> None:
    p = native()
    [call] = calls(p.feed_call(0, call_id="c", arguments="{}") + p.close())
    assert (call.name, call.error, call.error_code) == (
        "",
        "function call has no name",
        "malformed_call",
    )


def test_reused_provider_ids_are_made_unique() -> None:
    """Native ids come from the provider (some servers number calls per reply): a reused
    id is not the model's mistake, so the call runs under a fresh id."""
    state = DialectState()
    p = native(state)
    events = p.add_call("x1", "f", {}) + p.add_call("x1", "g", {}) + p.close()
    q = native(state)
    events += q.add_call("x1", "h", {"a": 1}) + q.add_call("x2", "k", {}) + q.close()
    got = summary(events)
    assert got == [
        (0, "x1", "f", {}, None, ""),
        (1, "x1~2", "g", {}, None, ""),
        (0, "x1~3", "h", {"a": 1}, None, ""),
        (1, "x2", "k", {}, None, ""),
    ]


def test_add_call_announces_then_completes() -> None:
    p = native()
    events = p.add_call("c", "f", {"a": [1]})
    assert events == [
        CallStarted(0, "f"),
        CallReady(ToolCall(0, "f", {"a": [1]}, "c", raw='{"a": [1]}')),
    ]


# -- parse_message --------------------------------------------------------------------------

SHAPES: dict[str, Any] = {
    "openai message": {
        "role": "assistant",
        "content": "Reading.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": ""}},
        ],
    },
    "openai message, null content": {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": '{"a": 1}'}}],
    },
    "openai tool calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    ],
    "anthropic message": {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
            {"type": "tool_use", "id": "toolu_2", "name": "g", "input": {}},
        ],
    },
    "anthropic content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}}],
    "gemini content": {
        "role": "model",
        "parts": [{"text": "Reading."}, {"functionCall": {"name": "f", "args": {"a": 1}}}],
    },
    "gemini parts": [
        {"functionCall": {"name": "f", "args": {"a": 1}}},
        {"function_call": {"name": "g"}},
    ],
    "plain call": {"name": "f", "arguments": {"a": 1}},
    "plain call, args": {"id": "k", "name": "f", "args": {"a": 1}},
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_parse_message_shapes(shape: str) -> None:
    events = parse_message(native(), SHAPES[shape])
    got = named(events)
    assert got[0] == ("f", {"a": 1})
    assert all(name in ("f", "g") for name, _ in got)
    if "Reading." in json.dumps(SHAPES[shape]):
        assert texts(events) == {"text": "Reading."}
    for call in calls(events):
        assert call.id  # provider ids kept, generated ones otherwise


def test_parse_message_keeps_provider_ids_and_order() -> None:
    events = parse_message(native(), SHAPES["anthropic message"])
    assert summary(events) == [
        (0, "toolu_1", "f", {"a": 1}, None, ""),
        (1, "toolu_2", "g", {}, None, ""),
    ]
    assert [e for e in events if isinstance(e, CallStarted)] == [
        CallStarted(0, "f"),
        CallStarted(1, "g"),
    ]


@pytest.mark.parametrize(
    "message",
    [
        42,
        "text",
        None,
        {"candidates": []},
        [{"type": "image"}],
        {"content": True},
        {"tool_calls": "x"},
    ],
)
def test_parse_message_rejects_unknown_items(message: Any) -> None:
    events = parse_message(native(), message)
    bad = calls(events)
    assert len(bad) >= 1
    for call in bad:
        assert call.error is not None and call.error.startswith(
            "not a text part or a function call"
        )
        assert call.error_code == "malformed_call"


def test_parse_message_empty_message() -> None:
    assert parse_message(native(), {"role": "assistant", "content": ""}) == []
    assert parse_message(native(), []) == []


# -- results and declarations -------------------------------------------------------------


def test_result_messages_and_render() -> None:
    a = ToolCall(0, "f", {}, "c1")
    b = ToolCall(1, "g", {}, "c2")
    outcomes = [CallOutcome(a, True, "fine 中文"), CallOutcome(b, False, "boom", error_code="x")]
    d = get_dialect("native")
    assert isinstance(d, Native)
    messages = [
        {"tool_call_id": "c1", "name": "f", "content": "fine 中文", "is_error": False},
        {"tool_call_id": "c2", "name": "g", "content": "boom", "is_error": True},
    ]
    assert d.result_messages(outcomes) == messages
    assert json.loads(d.render_results(outcomes)) == messages


def test_format_call_parses_back() -> None:
    text = get_dialect("native").format_call("f", {"a": [1, {"b": None}], "s": "x"})
    assert named(parse_message(native(), json.loads(text))) == [
        ("f", {"a": [1, {"b": None}], "s": "x"})
    ]


def test_declarations() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    assert Native.declarations([("search", "Search the web.", schema), ("ping", "", {})]) == [
        {"name": "search", "description": "Search the web.", "parameters": schema},
        {"name": "ping", "description": "", "parameters": {}},
    ]


def test_instructions() -> None:
    assert "function" in get_dialect("native").instructions()
