"""`toolcall`: CDATA tool calls (docs/protocol.md#toolcall--cdata-tool-calls), any number per reply.

`<tool_call><name>N</name><params><p><![CDATA[v]]></p>…</params></tool_call>`. The
text of each call is fed to lxml's incremental `XMLPullParser` as it streams; values
are typed by the tool's JSON Schema (the blind rule of `coerce.py` only where it says nothing).
Malformed XML falls back to a regex reading of the same text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

from lxml import etree

from karyi.protocol.base import Dialect, ScannerParser, StreamParser, no_schemas
from karyi.protocol.calls import CallOutcome, DialectState, PartialCall, SchemaLookup
from karyi.protocol.coerce import CoerceError, blind, coerce, property_schema
from karyi.protocol.xmlcontent import CDATA_CLOSE, CDATA_OPEN, partial_params
from karyi.protocol.xmltext import cdata, escape_text, start_tag

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
_STOP = re.compile("|".join(re.escape(t) for t in (CLOSE, OPEN, CDATA_OPEN)))
REOPENED = f"a new {OPEN} began before this call's {CLOSE}: the call is incomplete"
_FALLBACK_NAME = re.compile(r"<name>\s*(?:<!\[CDATA\[(.*?)\]\]>|([^<]*?))\s*</name>", re.S)
_FALLBACK_PARAMS = re.compile(r"<params>(.*)</params>", re.S)
_FALLBACK_PARAM = re.compile(
    r"<([A-Za-z_][\w.-]*)\s*>\s*(?:<!\[CDATA\[(.*?)\]\]>\s*|(.*?))</\1\s*>", re.S
)


class _Feeder:
    """Feeds one call's text to an lxml pull parser; remembers the first syntax error."""

    def __init__(self, on_name: Any) -> None:
        self.parser = etree.XMLPullParser(events=("end",))
        self.raw: list[str] = []
        self.error: str | None = None
        self.root: Any = None
        self._on_name = on_name

    def __call__(self, text: str) -> None:
        self.raw.append(text)
        if self.error is not None:
            return
        try:
            self.parser.feed(text)
        except etree.XMLSyntaxError as exc:
            self.error = str(exc).split(" (<string>")[0]
            return
        self._events()

    def _events(self) -> None:
        for _event, item in self.parser.read_events():
            el: Any = item
            parent = el.getparent()
            if el.tag == "name" and parent is not None and parent.tag == "tool_call":
                self._on_name((el.text or "").strip())
            if el.tag == "tool_call":
                self.root = el


class ToolCallParser(ScannerParser):
    """Streaming parser for `<tool_call>` blocks."""

    def __init__(self, schemas: SchemaLookup, state: DialectState | None) -> None:
        super().__init__(schemas, state)
        self._live: _Feeder | None = None  # the call being read
        self._open_cdata: list[str] | None = None  # and its CDATA section being read

    def partial(self) -> PartialCall | None:
        """See `StreamParser.partial`: the call being written, once its name is, with
        the parameters complete so far and the one being written."""
        feed = self._live
        if feed is None:
            return None
        raw = "".join(feed.raw)
        if self._open_cdata is not None:
            raw += CDATA_OPEN + "".join(self._open_cdata)
        m = _FALLBACK_NAME.search(raw)
        name = (m.group(1) or m.group(2) or "").strip() if m else ""
        start = raw.find("<params>")
        if not name:
            return None
        if start < 0:
            return PartialCall(self._index, name, {})
        content = raw[start + len("<params>") :]
        params, open_name = partial_params(name, {}, content, self.schemas(name))
        return PartialCall(self._index, name, params, (open_name,) if open_name else ())

    def run(self) -> Generator[None, None, None]:
        """Prose and calls until the reply ends."""
        sc = self.sc
        while True:
            found = yield from sc.until(OPEN, self.text)
            if not found:
                return
            announced: list[str] = []

            def announce(name: str, announced: list[str] = announced) -> None:
                if name and not announced:
                    announced.append(name)
                    self.started(name)

            feed = self._live = _Feeder(announce)
            feed(OPEN)
            try:
                closed = yield from self._body(feed)
            finally:
                self._live = self._open_cdata = None
            if closed is None:  # the next call began: it is read again from its <tool_call>
                raw = "".join(feed.raw)
                name = _from_regex(raw)[0]
                announce(name)
                self.emit(name, {}, raw=raw, error=REOPENED)
                continue
            self._finish(feed, closed, announce)

    def _body(self, feed: _Feeder) -> Generator[None, None, bool | None]:
        """True at `</tool_call>`, False at the end of the reply, None when another
        `<tool_call>` began first (outside CDATA; it is put back to be read again)."""
        sc = self.sc
        while True:
            m = yield from sc.until_re(_STOP, len(CLOSE), feed)
            if m is None:
                return False
            if m.group() == CLOSE:
                feed(CLOSE)
                return True
            if m.group() == OPEN:
                if self.resume(OPEN):
                    return None
                feed(OPEN)
                continue
            inner: list[str] = []
            self._open_cdata = inner
            ok = yield from sc.until(CDATA_CLOSE, inner.append)
            self._open_cdata = None
            feed(CDATA_OPEN + "".join(inner) + (CDATA_CLOSE if ok else ""))
            if not ok:
                return False

    def _finish(self, feed: _Feeder, closed: bool, announce: Callable[[str], None]) -> None:
        raw = "".join(feed.raw)
        if not closed:
            name = _from_regex(raw)[0]
            announce(name)
            self.emit(name, {}, raw=raw, error=f"unclosed {OPEN}: the reply ended before {CLOSE}")
            return
        if feed.error is None:
            try:
                feed.parser.close()
            except etree.XMLSyntaxError as exc:
                feed.error = str(exc)
        tree = _from_tree(feed.root) if feed.error is None and feed.root is not None else None
        name, values = tree if tree is not None else _from_regex(raw)
        if not name:
            self.emit("", {}, raw=raw, error=f"{OPEN} has no <name>: write <name>TOOL</name>")
            return
        announce(name)
        try:
            params = _typed(name, values, self.schemas(name))
        except CoerceError as exc:
            self.emit(name, {}, raw=raw, error=str(exc))
            return
        self.emit(name, params, raw=raw)


def _from_tree(root: Any) -> tuple[str, list[tuple[str, str]]] | None:
    """Name and parameter texts from the parsed tree; None when a value holds markup.

    A value written as unescaped markup (`<content><p>hi</p></content>`) is well-formed
    XML, but its element text is only the part before the first child: the regex
    reading keeps the value as written instead.
    """
    name = (root.findtext("name") or "").strip()
    params = root.find("params")
    values: list[tuple[str, str]] = []
    if params is not None:
        for child in params:
            if child.tag is etree.Comment or child.tag is etree.PI:
                continue
            if len(child):
                return None
            values.append((str(child.tag), child.text or ""))
    return name, values


def _from_regex(raw: str) -> tuple[str, list[tuple[str, str]]]:
    m = _FALLBACK_NAME.search(raw)
    name = ((m.group(1) if m.group(1) is not None else m.group(2)) or "").strip() if m else ""
    values: list[tuple[str, str]] = []
    pm = _FALLBACK_PARAMS.search(raw)
    if pm:
        for p in _FALLBACK_PARAM.finditer(pm.group(1)):
            values.append((p.group(1), p.group(2) if p.group(2) is not None else p.group(3)))
    return name, values


def _typed(
    name: str, values: list[tuple[str, str]], schema: Mapping[str, Any] | None
) -> dict[str, Any]:
    grouped: dict[str, list[str]] = {}
    for key, value in values:
        grouped.setdefault(key, []).append(value)
    out: dict[str, Any] = {}
    for key, vals in grouped.items():
        sub = property_schema(schema, key)
        where = f"{name}.{key}"
        if sub is None or sub.get("type") is None:
            typed = [blind(v) for v in vals]
            out[key] = typed[0] if len(typed) == 1 else typed
        elif len(vals) > 1:
            items = sub.get("items")
            item_schema = items if isinstance(items, Mapping) else None
            out[key] = [coerce(v, item_schema, f"{where}[{i}]") for i, v in enumerate(vals)]
        else:
            out[key] = coerce(vals[0], sub, where)
    return out


class ToolCallXml(Dialect):
    """The `<tool_call>` format (docs/protocol.md)."""

    name = "toolcall"
    summary = "CDATA tool calls: <tool_call><name/><params/></tool_call>"

    def parser(
        self, schemas: SchemaLookup = no_schemas, state: DialectState | None = None
    ) -> StreamParser:
        """See `Dialect.parser`."""
        return ToolCallParser(schemas, state)

    def render_results(self, outcomes: Sequence[CallOutcome]) -> str:
        """One `<tool_result>` per call, in call order."""
        return "\n".join(format_tool_result(o) for o in outcomes)

    def format_call(self, name: str, params: Mapping[str, Any]) -> str:
        """The format's exact call layout."""
        lines = [OPEN, f"  <name>{escape_text(name)}</name>", "  <params>"]
        for key, value in params.items():
            lines.append(f"    <{key}>{cdata(_text(value))}</{key}>")
        lines += ["  </params>", CLOSE]
        return "\n".join(lines)

    def instructions(self) -> str:
        """The `<tool_call>` rules, for the system prompt."""
        return _INSTRUCTIONS


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def format_tool_result(outcome: CallOutcome) -> str:
    """One call's result as XML, in the format's `format_tool_result` layout."""
    status = "success" if outcome.success else "error"
    if outcome.status and outcome.status not in ("ok", "error"):
        status = outcome.status
    lines = [
        "<tool_result>",
        f"  <name>{escape_text(outcome.call.name)}</name>",
        f"  <status>{escape_text(status)}</status>",
    ]
    if outcome.success:
        lines.append(f"  <result>{cdata(outcome.content)}</result>")
    else:
        attrs = {"code": outcome.error_code} if outcome.error_code else {}
        lines.append(f"  {start_tag('error', attrs)}{cdata(outcome.content)}</error>")
    lines.append("</tool_result>")
    return "\n".join(lines)


_INSTRUCTIONS = """\
# How to use tools (tool_call XML)
Call a tool by writing a <tool_call> element; put every parameter value in CDATA.
You may write several calls; then stop and wait for the <tool_result> elements.
Never write <tool_result> yourself. Use $KARYI{NAME} in a value to insert a secret.
"""
