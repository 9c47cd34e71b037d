"""Streaming: any chunking of a reply gives the same calls and text as parsing it whole,
and every call is emitted as soon as its last character has been fed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from karyi.protocol import CallReady, CallStarted, ParseEvent, get_dialect
from karyi.protocol.native import NativeParser

from ._helpers import calls, examples, feed_all, parse, split_at, starts, summary, texts
from ._strategies import REPLIES, TOOLCALL_SCHEMA, Reply, xmlish_text

SETTINGS = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
XML_DIALECTS = ["toolsxml", "agentxml", "toolcall"]


def toolcall_schemas(_name: str) -> Any:
    return TOOLCALL_SCHEMA


def schemas_for(dialect: str) -> Any:
    return toolcall_schemas if dialect == "toolcall" else None


def expected_calls(reply: Reply) -> list[tuple[int, str, dict[str, Any], Any, str]]:
    return [(i, n, p, None, cid) for i, (n, p, cid) in enumerate(reply.calls)]


def got_calls(events: list[ParseEvent]) -> list[tuple[int, str, dict[str, Any], Any, str]]:
    return [(c.index, c.name, c.params, c.error, c.id) for c in calls(events)]


def check_started_before_ready(events: list[ParseEvent]) -> None:
    """Every clean call was announced by a CallStarted with its index and name first."""
    announced: dict[int, str] = {}
    for e in events:
        if isinstance(e, CallStarted):
            assert e.index not in announced, e
            announced[e.index] = e.name
        elif isinstance(e, CallReady) and e.call.ok:
            assert announced.get(e.call.index) == e.call.name, e


@pytest.mark.parametrize("dialect", XML_DIALECTS)
@SETTINGS
@given(data=st.data())
def test_generated_reply_any_chunking(dialect: str, data: st.DataObject) -> None:
    reply: Reply = data.draw(REPLIES[dialect], label="reply")
    text = reply.text
    schemas = schemas_for(dialect)
    whole = parse(dialect, text, schemas=schemas)
    assert got_calls(whole) == expected_calls(reply)
    assert texts(whole) == reply.texts
    check_started_before_ready(whole)

    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=40), label="cuts")
    for chunks in (split_at(text, cuts), list(text)):
        events = parse(dialect, text, schemas=schemas, chunks=chunks)
        assert summary(events) == summary(whole)
        assert starts(events) == starts(whole)
        check_started_before_ready(events)


@pytest.mark.parametrize("dialect", XML_DIALECTS)
@SETTINGS
@given(data=st.data())
def test_each_call_is_emitted_once_complete(dialect: str, data: st.DataObject) -> None:
    """Feed the reply up to the end of call k (in random chunks): calls 0..k are out."""
    reply: Reply = data.draw(REPLIES[dialect].filter(lambda r: bool(r.calls)), label="reply")
    whole = calls(parse(dialect, reply.text, schemas=schemas_for(dialect)))
    k = data.draw(st.integers(0, len(reply.calls) - 1), label="k")
    prefix = reply.text[: reply.ends[k]]
    cuts = data.draw(st.lists(st.integers(0, len(prefix)), max_size=10), label="cuts")
    d = get_dialect(dialect)
    parser = d.parser(schemas_for(dialect)) if dialect == "toolcall" else d.parser()
    events = feed_all(parser, split_at(prefix, cuts), close=False)
    assert calls(events) == whole[: k + 1]
    # The rest of the reply gives the remaining calls, unchanged.
    rest = feed_all(parser, [reply.text[reply.ends[k] :]])
    assert calls(events + rest) == whole


@pytest.mark.parametrize("dialect", XML_DIALECTS)
@settings(max_examples=examples(300), deadline=None)
@given(text=xmlish_text, data=st.data())
def test_arbitrary_text_any_chunking(dialect: str, text: str, data: st.DataObject) -> None:
    """Even for nonsense, chunking changes nothing: calls, errors, ids, raw text, prose."""
    whole = parse(dialect, text)
    check_started_before_ready(whole)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=40), label="cuts")
    for chunks in (split_at(text, cuts), list(text)):
        events = parse(dialect, text, chunks=chunks)
        assert summary(events) == summary(whole)
        check_started_before_ready(events)


# -- native: chunking is how the provider splits arguments and text -----------------------

NATIVE_CALLS = st.lists(
    st.tuples(
        st.text(max_size=8),  # prose before the call
        st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10),
        st.dictionaries(
            st.text(max_size=5),
            st.none() | st.booleans() | st.integers() | st.text(max_size=8),
            max_size=3,
        ),
    ),
    max_size=4,
)


def native_parser() -> NativeParser:
    parser = get_dialect("native").parser()
    assert isinstance(parser, NativeParser)
    return parser


def stream_native(
    spec: list[tuple[str, str, dict[str, Any]]],
    style: str,
    split: Any,
) -> list[ParseEvent]:
    """Drive a native parser the way an OpenAI or Anthropic stream would."""
    p = native_parser()
    events: list[ParseEvent] = []
    for i, (before, name, args) in enumerate(spec):
        for piece in split(before):
            events += p.feed(piece)
        slot = i if style == "openai" else i + 1
        events += p.feed_call(slot, call_id=f"id{i}", name=name)
        for piece in split(json.dumps(args)):
            events += p.feed_call(slot, arguments=piece)
        if style == "anthropic":
            events += p.end_call(slot)
    return events + p.close()


@pytest.mark.parametrize("style", ["openai", "anthropic"])
@SETTINGS
@given(spec=NATIVE_CALLS, data=st.data())
def test_native_any_argument_chunking(
    style: str, spec: list[tuple[str, str, dict[str, Any]]], data: st.DataObject
) -> None:
    whole = stream_native(spec, style, lambda s: [s])
    assert [(c.index, c.id, c.name, c.params, c.error) for c in calls(whole)] == [
        (i, f"id{i}", name, args, None) for i, (_b, name, args) in enumerate(spec)
    ]
    prose = "".join(before for before, _n, _a in spec)
    assert texts(whole) == ({"text": prose} if prose else {})
    check_started_before_ready(whole)
    seed = data.draw(st.randoms(use_true_random=False))

    def split(s: str) -> list[str]:
        return split_at(s, [seed.randint(0, len(s)) for _ in range(seed.randint(0, 5))])

    events = stream_native(spec, style, split)
    assert summary(events) == summary(whole)
    assert starts(events) == starts(whole)
