"""A malformed call never costs the calls after it: each dialect ends the broken call
where the next one starts and parses on (docs/protocol.md, "Errors the model can act
on"), in one piece or in any chunking."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karyi.protocol import CallReady, ParseEvent, ToolCall, get_dialect
from karyi.protocol.base import MAX_RECOVERIES
from karyi.protocol.coerce import CoerceError, blind, coerce
from karyi.protocol.jsonscan import MAX_DEPTH, MAX_INT_DIGITS, JsonSlip, load_json

from ._helpers import examples, feed_all, split_at

# Per dialect: how a reply wraps its calls, a valid call before, the call that gets
# broken, and the valid call after it (pattern TODO).
FRAMES = {
    "toolsxml": ("<tools>\n{}\n</tools>\n", "\n"),
    "toolcall": ("{}\n", "\n"),
    "agentxml": ("<tools>\n[{}]\n</tools>\n", ",\n"),
}
BEFORE = {
    "toolsxml": '<grep pattern="FIRST"/>',
    "toolcall": "<tool_call><name>grep</name><params><pattern>FIRST</pattern></params></tool_call>",
    "agentxml": '{"id": "a", "name": "grep", "parameters": {"pattern": "FIRST"}}',
}
BROKEN = {
    "toolsxml": [
        '<grep pattern="BAD" path="src"/>',
        '<read>\n<file src="a.py"/>\n<file src="b.py" offset="2"/>\n</read>',
        '<edit>\n<file src="a.py">\n<find>x = 1</find>\n<replace>x = 2</replace>\n</file>\n</edit>',
        "<command>\nmake test\n</command>",
        '<write_file path="a.txt">\n<content>hello</content>\n</write_file>',
    ],
    "toolcall": [
        "<tool_call><name>grep</name><params><pattern>BAD</pattern><path>src</path></params>"
        "</tool_call>",
        "<tool_call>\n  <name>read_file</name>\n  <params>\n    <filePath>a.py</filePath>\n"
        "  </params>\n</tool_call>",
    ],
    "agentxml": [
        '{"id": "b", "name": "grep", "parameters": {"pattern": "BAD", "path": "src"}}',
        '{"id": "b", "name": "write_file", "parameters": {"path": "a", "content": "x"}}',
    ],
}
AFTER = {
    "toolsxml": '<grep pattern="TODO"/>',
    "toolcall": "<tool_call><name>grep</name><params><pattern>TODO</pattern></params></tool_call>",
    "agentxml": '{"id": "c", "name": "grep", "parameters": {"pattern": "TODO"}}',
}
DIALECTS = list(FRAMES)
SETTINGS = settings(max_examples=examples(150), deadline=None)


def reply(dialect: str, broken: str) -> str:
    frame, sep = FRAMES[dialect]
    return frame.format(sep.join([BEFORE[dialect], broken, AFTER[dialect]]))


def calls(events: list[ParseEvent]) -> list[ToolCall]:
    found = [e.call for e in events if isinstance(e, CallReady)]
    assert [c.index for c in found] == list(range(len(found)))
    assert all(c.error_code != "parser_error" for c in found), found
    return found


def valid(found: list[ToolCall], pattern: str) -> bool:
    return any(c.error is None and c.params.get("pattern") == pattern for c in found)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_unbroken_replies_parse(dialect: str) -> None:
    for broken in BROKEN[dialect]:
        found = calls(get_dialect(dialect).parser().parse(reply(dialect, broken)))
        assert len(found) == 3 and all(c.error is None for c in found), found


@pytest.mark.parametrize(
    ("dialect", "text"),
    [
        ("toolsxml", '<tools>\n<read><file src="a"></read>\n<grep pattern="TODO"/>\n</tools>'),
        ("toolsxml", '<tools>\n<grep pattern="open>\n<grep pattern="TODO"/>\n</tools>'),
        ("toolsxml", '<tools>\n<bogus <x>\n<grep pattern="TODO"/>\n</tools>'),
        ("toolsxml", '<tools>\n<command>ls\n<grep pattern="TODO"/>\n</tools>'),
        (
            "toolcall",
            "<tool_call><name>grep</name><params><pattern>x</pattern></params>\n"
            "<tool_call><name>grep</name><params><pattern>TODO</pattern></params></tool_call>",
        ),
        (
            "agentxml",
            '<tools>[{"id": "1", "name": "grep", "parameters": {"pattern": "x"}, '
            '{"id": "2", "name": "grep", "parameters": {"pattern": "TODO"}}]</tools>',
        ),
    ],
)
def test_a_call_left_open_does_not_swallow_the_next(dialect: str, text: str) -> None:
    found = calls(get_dialect(dialect).parser().parse(text))
    assert [c.error is None for c in found] == [False, True]
    assert found[1].params == {"pattern": "TODO"}
    assert "TODO" not in found[0].raw


@pytest.mark.parametrize("dialect", DIALECTS)
@SETTINGS
@given(data=st.data())
def test_a_truncated_call_in_any_chunking(dialect: str, data: st.DataObject) -> None:
    """The broken call is a valid one cut short anywhere (the model stopped writing it);
    the call before it and the call after it are still read, however the reply streams."""
    broken = data.draw(st.sampled_from(BROKEN[dialect]), label="call")
    cut = data.draw(st.integers(1, len(broken) - 1), label="cut")
    text = reply(dialect, broken[:cut])
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=20), label="chunks")
    whole = calls(get_dialect(dialect).parser().parse(text))
    chunked = calls(feed_all(get_dialect(dialect).parser(), split_at(text, cuts)))
    assert [(c.name, c.params, c.error) for c in chunked] == [
        (c.name, c.params, c.error) for c in whole
    ]
    assert valid(whole, "FIRST") and valid(whole, "TODO"), whole


@pytest.mark.parametrize("dialect", DIALECTS)
@SETTINGS
@given(data=st.data())
def test_a_mutated_call_never_breaks_the_parser(dialect: str, data: st.DataObject) -> None:
    """Any slice of the broken call deleted, or junk inserted: no exception, the call
    before it still read."""
    broken = data.draw(st.sampled_from(BROKEN[dialect]), label="call")
    start = data.draw(st.integers(0, len(broken)), label="start")
    end = data.draw(st.integers(start, len(broken)), label="end")
    junk = data.draw(st.sampled_from(["", "<", ">", '"', "{", "}", "]", "</tools>", "<x>"]))
    text = reply(dialect, broken[:start] + junk + broken[end:])
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=20), label="chunks")
    found = calls(feed_all(get_dialect(dialect).parser(), split_at(text, cuts)))
    assert valid(found, "FIRST"), found


def test_recoveries_are_bounded() -> None:
    """Each re-read costs a pass over the rest of the reply: at most MAX_RECOVERIES."""
    bad = '<read><file src="a">\n' * (MAX_RECOVERIES + 10)
    found = calls(get_dialect("toolsxml").parser().parse(f"<tools>\n{bad}</tools>"))
    assert len(found) == MAX_RECOVERIES + 1


# -- numeric and nesting limits (docs/protocol.md, "Limits") ---------------------------------


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("1" * (MAX_INT_DIGITS + 1), "digits"),
        ("1e999", "not finite"),
        ("[NaN]", "NaN"),
        ('{"a": -Infinity}', "Infinity"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "levels deep"),
    ],
)
def test_json_beyond_the_limits_is_refused(text: str, why: str) -> None:
    with pytest.raises(JsonSlip, match=why):
        load_json(text)


def test_json_within_the_limits_is_read() -> None:
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert load_json(deep) is not None
    assert load_json("9" * MAX_INT_DIGITS) == int("9" * MAX_INT_DIGITS)
    assert load_json("1.5e300") == 1.5e300


@pytest.mark.parametrize("value", ["1e999", "-1e400", "nan", "inf"])
def test_a_number_parameter_must_be_finite(value: str) -> None:
    with pytest.raises(CoerceError, match=r"expected a (finite )?number"):
        coerce(value, {"type": "number"}, "n")
    assert blind(value) == value  # untyped: kept as the text it is


@pytest.mark.parametrize("dialect", ["agentxml", "toolcall"])
def test_a_call_with_an_infinite_number_is_an_error_and_the_next_runs(dialect: str) -> None:
    if dialect == "agentxml":
        text = (
            '<tools>[{"id": "1", "name": "t", "parameters": {"n": 1e999}},\n'
            '{"id": "2", "name": "grep", "parameters": {"pattern": "TODO"}}]</tools>'
        )
    else:
        text = (
            "<tool_call><name>t</name><params><n>1e999</n></params></tool_call>\n"
            "<tool_call><name>grep</name><params><pattern>TODO</pattern></params></tool_call>"
        )
    schemas = {"t": {"type": "object", "properties": {"n": {"type": "number"}}}}
    found = calls(get_dialect(dialect).parser(schemas.get).parse(text))
    assert [c.error is None for c in found] == [False, True]
