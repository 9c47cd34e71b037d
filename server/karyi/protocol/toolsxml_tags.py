"""The tag level of ToolsXML (docs/protocol.md): tags read as they stream, quote-aware,
raw element text, and where a malformed call's parse can resume. `toolsxml_parser.py`
builds calls on top of it."""

from __future__ import annotations

import functools
import re
import textwrap
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import Any

from karyi.protocol.base import ScannerParser
from karyi.protocol.calls import DialectState, SchemaLookup
from karyi.protocol.scanner import NAME_START
from karyi.protocol.xmlcontent import (
    CDATA_CLOSE,
    CDATA_OPEN,
    TAG_NAME,
    RawText,
    parse_attrs,
)

TOOLS_OPEN = re.compile(r"(?<!`)<tools(?=[\s>/])")
_TAG_STOP = re.compile(r"[\"'>]")
RAW_TAGS = {"command": "command", "input": "text", "ctrl": "key"}
_RESUME = re.compile(r"\n[ \t]*(?:</tools>|<(?P<name>[A-Za-z_][\w.:-]*)(?=[\s/>]))")
CHILD_TAGS = frozenset({"file", "find", "replace", "search", "tools"})
"""Tags that never start a call: a malformed call is not cut before one of them."""
Steps = Generator[None, None, Any]


@dataclass
class Tag:
    """A start, end or empty-element tag as written."""

    name: str
    closing: bool = False
    selfclosing: bool = False
    attrs: dict[str, str] | None = None
    error: str | None = None
    source: str = ""


END = Tag("", closing=True)  # the parent's own end tag
EOF = Tag("")  # the reply ended


def dedent_script(text: str) -> str:
    """`<command>` content: dedented, surrounding blank lines removed."""
    lines = textwrap.dedent(text.replace("\r\n", "\n")).split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


class TagReader(ScannerParser):
    """Reads the tags and raw text of a ToolsXML reply as it streams."""

    def __init__(self, schemas: SchemaLookup, state: DialectState | None) -> None:
        super().__init__(schemas, state)
        self._blocks = 0
        self._head = ""
        self._cut = ""  # a tag the reply ended inside of, as far as it was written
        self._open_raw: RawText | None = None  # the raw element text being read
        self._open_cdata: list[str] | None = None  # and its CDATA section being read

    # -- low-level readers -------------------------------------------------------------

    def _tag_text(self) -> Steps:
        """After `<`: the rest of the tag through `>`, quote-aware; None at end of reply."""
        sc = self.sc
        parts: list[str] = []
        quote = ""
        while True:
            pat = _TAG_STOP if not quote else (_DQ if quote == '"' else _SQ)
            m = pat.search(sc.buf, sc.pos)
            if m is None:
                sc.consume(len(sc.buf), parts.append)
                if sc.eof:
                    self._cut = "".join(parts)
                    return None
                yield
                continue
            sc.consume(m.end(), parts.append)
            ch = m.group()
            if quote:
                quote = ""
            elif ch == ">":
                return "".join(parts)
            else:
                quote = ch

    def _tag(self) -> Steps:
        """After `<` whose next character starts a name or `/`: the parsed tag."""
        text = yield from self._tag_text()
        if text is None:
            return EOF
        closing = text.startswith("/")
        body = text[1:] if closing else text
        m = TAG_NAME.match(body)
        name = m.group() if m else ""
        rest = body[len(name) : -1]
        selfclosing = rest.rstrip().endswith("/")
        if selfclosing:
            rest = rest.rstrip()[:-1]
        if closing:
            error = None if not rest.strip() else f"end tag </{name}> has more than its name"
            return Tag(name, closing=True, error=error, source="<" + text)
        attrs, error = parse_attrs(name, rest)
        return Tag(name, selfclosing=selfclosing, attrs=attrs, error=error, source="<" + text)

    def _next(self, parent: str) -> Steps:
        """The next tag inside `parent`: a child start tag, END for `</parent>`, or EOF.

        Text between tags, comments and stray CDATA are skipped; a stray end tag of
        another element is returned as a closing Tag.
        """
        sc = self.sc
        while True:
            if not (yield from sc.until("<")):
                return EOF
            head = yield from sc.peek(1)
            if head == "!":  # wait for more only here, so `<x/>` is read once `>` is in
                head = yield from sc.peek(len(CDATA_OPEN) - 1)
            if head.startswith("!--"):
                if not (yield from sc.until("-->")):
                    return EOF
                continue
            if head.startswith("![CDATA["):
                if not (yield from sc.until(CDATA_CLOSE)):
                    return EOF
                continue
            if not head or (head[0] not in NAME_START and head[0] != "/"):
                continue
            tag = yield from self._tag()
            if tag is EOF:
                return EOF
            if tag.closing and tag.name == parent and tag.error is None:
                return END
            return tag

    def _raw(self, name: str) -> Steps:
        """Raw element text through `</name>`: (value, error)."""
        sc = self.sc
        close = f"</{name}>"
        pattern = _raw_stop(close)
        raw = self._open_raw = RawText()
        try:
            while True:
                m = yield from sc.until_re(pattern, max(len(close), len(CDATA_OPEN)), raw.plain)
                if m is None:
                    return raw.value(), f"unclosed <{name}>: the reply ended before {close}"
                if m.group() == close:
                    return raw.value(), None
                inner: list[str] = []
                self._open_cdata = inner
                closed = yield from sc.until(CDATA_CLOSE, inner.append)
                self._open_cdata = None
                raw.section("".join(inner), closed)
                if not closed:
                    return raw.value(), f"unclosed CDATA section in <{name}>"
        finally:
            self._open_raw = self._open_cdata = None

    def raw_so_far(self) -> str | None:
        """The text of the raw element being read, as far as it arrived (None: none is)."""
        if self._open_raw is None:
            return None
        cdata = self._open_cdata
        return self._open_raw.value_with("".join(cdata) if cdata is not None else None)

    def _skip(self, tag: Tag) -> Steps:
        """Consume an unexpected element whole; returns an error if the reply ended."""
        if tag.selfclosing or tag.closing:
            return None
        _value, error = yield from self._raw(tag.name)
        return error

    # -- grammar -----------------------------------------------------------------------


def resume_point(raw: str, start: int) -> int | None:
    """Where the next call starts inside a malformed call's text: the first line from
    `start` on that begins with a tag other than a built-in's child (or `</tools>`)."""
    for m in _RESUME.finditer(raw, start):
        if m["name"] not in CHILD_TAGS:
            return m.start() + 1
    return None


_DQ = re.compile('"')
_SQ = re.compile("'")


@functools.lru_cache(maxsize=64)
def _raw_stop(close: str) -> re.Pattern[str]:
    return re.compile(re.escape(close) + "|" + re.escape(CDATA_OPEN))


def builtin_shape(schema: Mapping[str, Any] | None, *keys: str) -> bool:
    """True unless the toolkit's tool of this name is another profile's (vecli's `edit`)."""
    if schema is None:
        return True
    props = schema.get("properties")
    return not isinstance(props, Mapping) or any(k in props for k in keys)
