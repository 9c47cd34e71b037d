"""Partial calls: every dialect that can carry an edit shows the call while it streams
(docs/protocol.md, "Drafts"): the name, the parameters so far, and the value still being
written, which only ever grows and ends as the finished call's value."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from karyi.protocol import get_dialect
from karyi.protocol.base import StreamParser
from karyi.protocol.calls import CallReady, PartialCall
from karyi.protocol.native import NativeParser

NEW = "def f():\n    x = 2  # a < b && c\n    return x\n"


def _walk(parser: StreamParser, text: str, step: int) -> tuple[list[PartialCall], list[Any]]:
    """Feed `text` in chunks of `step`, asking for the partial call after each."""
    seen: list[PartialCall] = []
    ready: list[Any] = []
    for i in range(0, len(text), step):
        events = parser.feed(text[i : i + step])
        ready += [e.call for e in events if isinstance(e, CallReady)]
        partial = parser.partial()
        if partial is not None and (not seen or seen[-1] != partial):
            seen.append(partial)
    ready += [e.call for e in parser.close() if isinstance(e, CallReady)]
    assert parser.partial() is None
    return seen, ready


def _value(params: dict[str, Any], path: tuple[str | int, ...]) -> Any:
    value: Any = params
    for key in path:
        value = value[key]
    return value


def _assert_grows(seen: list[PartialCall], path: tuple[str | int, ...], final: str) -> None:
    """The value at `path` is open in at least two distinct states, each a prefix of the
    next and of `final`."""
    states = [_value(p.params, path) for p in seen if p.open == path]
    assert len(set(states)) >= 2, states
    for before, after in itertools.pairwise(states):
        assert after.startswith(before)
    assert all(final.startswith(s) for s in states)


TOOLSXML = (
    "Fixing it.\n<tools>\n"
    '<edit><file src="a.py"><find>def f():\n    return 1\n</find>'
    f"<replace>{NEW}</replace></file></edit>\n"
    f'<write_file file_path="b.py"><content><![CDATA[{NEW}]]></content></write_file>\n'
    "</tools>"
)


@pytest.mark.parametrize("step", [1, 7, 64])
def test_toolsxml_edit_grows_and_closes(step: int) -> None:
    seen, ready = _walk(get_dialect("toolsxml").parser(), TOOLSXML, step)
    edits = [p for p in seen if p.name == "edit"]
    path = ("files", 0, "pairs", 0, "replace")
    if step < 64:
        _assert_grows(edits, path, NEW)
    for p in edits:
        files = p.params["files"]
        assert not files or files[0]["src"] == "a.py"
        # a find still being written is never offered as a pair
        for f in files:
            assert all(pair["find"] == "def f():\n    return 1\n" for pair in f["pairs"])
    assert [c.name for c in ready] == ["edit", "write_file"]
    assert ready[0].params["files"][0]["pairs"][0]["replace"] == NEW


def test_toolsxml_generic_tool_with_cdata_grows() -> None:
    seen, ready = _walk(get_dialect("toolsxml").parser(), TOOLSXML, 3)
    writes = [p for p in seen if p.name == "write_file"]
    assert writes and all(p.index == 1 for p in writes)
    assert all(p.params["file_path"] == "b.py" for p in writes)
    _assert_grows(writes, ("content",), NEW)
    assert ready[1].params["content"] == NEW


def test_toolsxml_open_value_never_holds_its_end_tag() -> None:
    seen, _ = _walk(get_dialect("toolsxml").parser(), TOOLSXML, 1)
    for p in seen:
        for f in p.params.get("files", []):
            for pair in f["pairs"]:
                assert "</" not in pair["replace"].replace("a < b", "")
        assert "</content" not in str(p.params.get("content", ""))


def test_toolcall_grows() -> None:
    reply = (
        "<tool_call><name>write_file</name><params><file_path>b.py</file_path>"
        f"<content><![CDATA[{NEW}]]></content></params></tool_call>"
    )
    seen, ready = _walk(get_dialect("toolcall").parser(), reply, 4)
    _assert_grows(seen, ("content",), NEW)
    assert {p.params.get("file_path") for p in seen if p.open == ("content",)} == {"b.py"}
    assert ready[0].params == {"file_path": "b.py", "content": NEW}


def test_agentxml_grows_and_carries_the_id() -> None:
    body = '[{"id": "w1", "name": "write_file", "parameters": {"path": "b.py", "content": %s}}]'
    reply = "<tools>" + body % json.dumps(NEW) + "</tools>"
    seen, ready = _walk(get_dialect("agentxml").parser(), reply, 5)
    _assert_grows(seen, ("content",), NEW)
    assert {p.call_id for p in seen} == {"w1"}
    assert ready[0].params["content"] == NEW


def test_native_grows_per_slot() -> None:
    parser = get_dialect("native").parser()
    assert isinstance(parser, NativeParser)
    args = json.dumps({"file_path": "a.py", "old_string": "return 1", "new_string": NEW})
    parser.feed_call(0, call_id="t1", name="edit")
    seen: list[PartialCall] = []
    for i in range(0, len(args), 6):
        parser.feed_call(0, arguments=args[i : i + 6])
        p = parser.partial()
        assert p is not None and p.call_id == "t1" and p.name == "edit"
        if not seen or seen[-1] != p:
            seen.append(p)
    _assert_grows(seen, ("new_string",), NEW)
    [ready] = [e.call for e in parser.end_call(0) if isinstance(e, CallReady)]
    assert ready.params["new_string"] == NEW
    assert parser.partial() is None


def test_no_partial_between_calls_or_in_prose() -> None:
    parser = get_dialect("toolsxml").parser()
    parser.feed("Some prose with <b>tags</b> and no tools yet.")
    assert parser.partial() is None
