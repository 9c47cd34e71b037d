"""Fuzzing: no input, however broken or however chunked, makes a parser raise or give up.

A parser that hits an unexpected exception reports an "internal parser error" call
(error_code "parser_error") and stops parsing the reply: that is always a parser bug.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karyi.protocol import DIALECTS, CallReady, ParseEvent, TextDelta, get_dialect
from karyi.protocol.native import NativeParser, parse_message

from ._helpers import examples, feed_all, split_at
from ._strategies import XMLISH

XML_DIALECTS = ["toolsxml", "agentxml", "toolcall"]
SETTINGS = settings(max_examples=examples(250), deadline=None)

# Anything at all: XML-ish pieces, any Unicode (NUL, controls, emoji, lone CR), JSON bits.
ANY_TEXT = st.lists(
    st.one_of(
        st.sampled_from(XMLISH),
        st.text(max_size=6),
        st.text(st.characters(max_codepoint=0x1F), max_size=3),
        st.sampled_from(["\x00", "\ufeff", "\u2028", "\ud7ff", "\U0001f600", "\r\n"]),
    ),
    max_size=80,
).map("".join)

# Schemas as tools declare them, including odd ones an MCP server might send.
SCHEMA = st.one_of(
    st.none(),
    st.just({}),
    st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["object", "string", 5, None, ["object", "null"]]),
            "required": st.sampled_from([["q"], ["pattern"], "q", [1], []]),
            "properties": st.one_of(
                st.just([]),
                st.dictionaries(
                    st.sampled_from(["q", "pattern", "path", "n", "x", "files", "searches"]),
                    st.one_of(
                        st.just({}),
                        st.just("string"),
                        st.fixed_dictionaries(
                            {},
                            optional={
                                "type": st.sampled_from(
                                    [
                                        "string",
                                        "integer",
                                        "number",
                                        "boolean",
                                        "null",
                                        "array",
                                        "object",
                                        "mystery",
                                        ["integer", "null"],
                                        ["boolean", "array"],
                                        [],
                                        7,
                                        {"bad": 1},
                                        None,
                                    ]
                                ),
                                "items": st.sampled_from(
                                    [{"type": "integer"}, [{"type": "string"}], True, None]
                                ),
                            },
                        ),
                    ),
                    max_size=4,
                ),
            ),
        },
    ),
)


def assert_sane(events: list[ParseEvent]) -> None:
    for e in events:
        if isinstance(e, CallReady):
            assert e.call.error_code != "parser_error", e.call
            assert e.call.error is None or e.call.error_code, e.call
        if isinstance(e, TextDelta):
            assert e.text, e


@pytest.mark.parametrize("dialect", XML_DIALECTS)
@SETTINGS
@given(text=ANY_TEXT, data=st.data())
def test_any_text_any_chunks(dialect: str, text: str, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=30), label="cuts")
    assert_sane(get_dialect(dialect).parser().parse(text))
    assert_sane(feed_all(get_dialect(dialect).parser(), split_at(text, cuts)))


@pytest.mark.parametrize("dialect", XML_DIALECTS)
@SETTINGS
@given(text=ANY_TEXT, schema=SCHEMA, data=st.data())
def test_any_text_with_odd_schemas(
    dialect: str, text: str, schema: Any, data: st.DataObject
) -> None:
    """Schemas from elsewhere (MCP servers) may be strange; typing must not crash."""
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=10), label="cuts")
    parser = get_dialect(dialect).parser(lambda _name: schema)
    assert_sane(feed_all(parser, split_at(text, cuts)))


@pytest.mark.parametrize("dialect", XML_DIALECTS)
@SETTINGS
@given(
    calls=st.lists(
        st.tuples(
            st.sampled_from(["grep", "q", "command", "t"]),
            st.dictionaries(
                st.sampled_from(["q", "pattern", "path", "n", "x", "files"]),
                st.sampled_from(["1", "x", "true", "[1, 2]", '{"a": 1}', "", "1.5", "<a>"]),
                max_size=3,
            ),
        ),
        max_size=3,
    ),
    schema=SCHEMA,
)
def test_well_formed_calls_with_odd_schemas(
    dialect: str, calls: list[tuple[str, dict[str, str]]], schema: Any
) -> None:
    """Calls as the dialect writes them, typed by strange schemas: errors, no crash."""
    d = get_dialect(dialect)
    body = "\n".join(d.format_call(name, params) for name, params in calls)
    if dialect == "toolsxml" and not body.startswith("<tools>"):
        body = f"<tools>\n{body}\n</tools>"
    assert_sane(d.parser(lambda _name: schema).parse(body))


# -- native ------------------------------------------------------------------------------

OPS = st.lists(
    st.one_of(
        st.tuples(st.just("text"), st.text(max_size=5)),
        st.tuples(
            st.just("call"),
            st.integers(0, 3),
            st.none() | st.sampled_from(["a", "b", "", "id1"]),
            st.none() | st.sampled_from(["f", "g", "", "fn"]),
            st.sampled_from(['{"a"', ": 1}", "", "[1]", '"s"', "{", "}", "null", "{}", "x"]),
        ),
        st.tuples(st.just("end"), st.integers(-1, 4)),
        st.tuples(st.just("close")),
    ),
    max_size=20,
)


@SETTINGS
@given(ops=OPS)
def test_native_any_fragment_sequence(ops: list[tuple[Any, ...]]) -> None:
    p = get_dialect("native").parser()
    assert isinstance(p, NativeParser)
    events: list[ParseEvent] = []
    for op in ops:
        if op[0] == "text":
            events += p.feed(op[1])
        elif op[0] == "call":
            events += p.feed_call(op[1], call_id=op[2], name=op[3], arguments=op[4])
        elif op[0] == "end":
            events += p.end_call(op[1])
        else:
            events += p.close()
    events += p.close()
    assert_sane(events)
    ready = [e.call for e in events if isinstance(e, CallReady)]
    assert sorted(c.index for c in ready) == list(range(len(ready)))


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "text",
                    "id",
                    "name",
                    "function",
                    "arguments",
                    "args",
                    "input",
                    "functionCall",
                    "function_call",
                    "content",
                    "tool_calls",
                    "parts",
                    "tool_use",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=10,
)


@SETTINGS
@given(message=JSONISH)
def test_native_parse_message_any_shape(message: Any) -> None:
    p = get_dialect("native").parser()
    assert isinstance(p, NativeParser)
    assert_sane(parse_message(p, message))


def test_every_dialect_is_fuzzed() -> None:
    assert set(DIALECTS) == {*XML_DIALECTS, "native"}
    json.dumps(XMLISH)  # the pieces are plain strings
