"""`toolsxml`: KaryiAgent ToolsXML v1.0 (docs/protocol.md), parsed as it streams.

A reply is prose plus one `<tools>` block. Inside it, `<command>`, `<edit>`, `<read>`,
`<input>` and `<ctrl>` have their documented structure; every other registered tool is a tag
of its own name with attributes or child elements. Element text is raw code: `<`, `>`
and `&` need no escaping and survive byte-for-byte; CDATA is accepted too.
"""

from __future__ import annotations

import functools
import json
import re
import textwrap
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from karyi.protocol.base import Dialect, ScannerParser, StreamParser, no_schemas
from karyi.protocol.calls import CallOutcome, DialectState, SchemaLookup
from karyi.protocol.coerce import CoerceError, coerce, property_schema
from karyi.protocol.scanner import NAME_START
from karyi.protocol.xmlcontent import (
    CDATA_CLOSE,
    CDATA_OPEN,
    TAG_NAME,
    RawText,
    generic_params,
    parse_attrs,
)
from karyi.protocol.xmltext import cdata, element, start_tag

_TOOLS_OPEN = re.compile(r"(?<!`)<tools(?=[\s>/])")
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


class ToolsXmlParser(ScannerParser):
    """Streaming parser for ToolsXML replies."""

    def __init__(self, schemas: SchemaLookup, state: DialectState | None) -> None:
        super().__init__(schemas, state)
        self._blocks = 0
        self._head = ""
        self._cut = ""  # a tag the reply ended inside of, as far as it was written

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
        raw = RawText()
        while True:
            m = yield from sc.until_re(pattern, max(len(close), len(CDATA_OPEN)), raw.plain)
            if m is None:
                return raw.value(), f"unclosed <{name}>: the reply ended before {close}"
            if m.group() == close:
                return raw.value(), None
            inner: list[str] = []
            closed = yield from sc.until(CDATA_CLOSE, inner.append)
            raw.section("".join(inner), closed)
            if not closed:
                return raw.value(), f"unclosed CDATA section in <{name}>"

    def _skip(self, tag: Tag) -> Steps:
        """Consume an unexpected element whole; returns an error if the reply ended."""
        if tag.selfclosing or tag.closing:
            return None
        _value, error = yield from self._raw(tag.name)
        return error

    # -- grammar -----------------------------------------------------------------------

    def run(self) -> Generator[None, None, None]:
        """Prose, then `<tools>` blocks, until the reply ends."""
        sc = self.sc
        while True:
            m = yield from sc.until_re(_TOOLS_OPEN, 7, self.text)
            if m is None:
                return
            rest = yield from self._tag_text()
            if rest is None:
                self.text("<tools" + self._cut)
                return
            self._blocks += 1
            if not rest.rstrip(">").rstrip().endswith("/"):
                yield from self._block()

    def _block(self) -> Generator[None, None, None]:
        while True:
            self._cut = ""
            tag = yield from self._next("tools")
            if tag is EOF and self._cut and not self._cut.startswith("/") and self._truncated():
                continue
            if tag is END or tag is EOF:
                return
            broken = tag.error or tag.closing
            if broken and (at := _resume_point(tag.source, 1)) and self.resume(tag.source[at:]):
                self._head = tag.source[:at]  # a tag never closed: `<grep\n<read>…`
                self.sc.start_recording()
                why = tag.error or "it has no '>'"
                self._finish(tag.name or "?", {}, f"unclosed tag {tag.source[:at].strip()}: {why}")
                continue
            self._head = tag.source
            self.sc.start_recording()
            if tag.closing:
                self._finish(
                    tag.name or "?",
                    {},
                    f"stray </{tag.name}> inside <tools>: it closes no open element",
                )
                continue
            self.started(tag.name)
            yield from self._call(tag)

    def _truncated(self) -> bool:
        """The reply ended inside a tool's start tag: report it so the model learns. True
        when the calls after it are read again (see `_finish`)."""
        cut = self._cut
        m = TAG_NAME.match(cut)
        name = m.group() if m else "?"
        self._head = "<" + cut
        self.sc.start_recording()
        return self._finish(
            name, {}, f"unclosed <{name}>: the reply ended inside its start tag", start=1
        )

    def _finish(
        self, name: str, params: dict[str, Any], error: str | None, *, start: int | None = None
    ) -> bool:
        """Emit the call. One that took the rest of the reply with it (an element left
        unclosed) ends before the first line that starts another call's tag; that text
        is read again, and True is returned."""
        raw = self._head + self.sc.stop_recording()
        resumed = False
        if error is not None and self.sc.at_end():
            at = _resume_point(raw, len(self._head) if start is None else start)
            if at is not None and self.resume(raw[at:]):
                raw, resumed = raw[:at], True
        if error is None and self._blocks > 1:
            error = (
                f"only one <tools> block is allowed per reply; this call is in block "
                f"{self._blocks} and was not run: put every call in the first block"
            )
        self.emit(name, params, raw=raw, error=error)
        return resumed

    def _call(self, tag: Tag) -> Generator[None, None, None]:
        name = tag.name
        schema = self.schemas(name)
        errors: list[str] = [tag.error] if tag.error else []
        if name == "edit" and _builtin_shape(schema, "files"):
            params, errs = yield from self._edit(tag, schema)
        elif name == "read" and _builtin_shape(schema, "files", "searches"):
            params, errs = yield from self._read(tag, schema)
        elif name in RAW_TAGS:
            params, errs = yield from self._raw_call(tag, schema)
        else:
            params, errs = yield from self._generic(tag, schema)
        errors += errs
        self._finish(name, params, "; ".join(errors) if errors else None)

    def _raw_call(self, tag: Tag, schema: Mapping[str, Any] | None) -> Steps:
        key = RAW_TAGS[tag.name]
        errors: list[str] = []
        params: dict[str, Any] = {}
        for k, v in (tag.attrs or {}).items():
            try:
                params[k] = coerce(v, property_schema(schema, k), f"<{tag.name}>.{k}")
            except CoerceError as exc:
                errors.append(str(exc))
        content, error = ("", None) if tag.selfclosing else (yield from self._raw(tag.name))
        if tag.name == "command":
            content = dedent_script(content)
        elif tag.name == "ctrl":
            content = content.strip()
        params[key] = content
        return params, [*errors, error] if error else errors

    def _generic(self, tag: Tag, schema: Mapping[str, Any] | None) -> Steps:
        content, error = ("", None) if tag.selfclosing else (yield from self._raw(tag.name))
        if error:
            return {}, [error]
        try:
            return generic_params(tag.name, tag.attrs or {}, content, schema), []
        except CoerceError as exc:
            return {}, [str(exc)]

    def _edit(self, tag: Tag, schema: Mapping[str, Any] | None) -> Steps:
        files: list[dict[str, Any]] = []
        errors: list[str] = []
        if tag.selfclosing:
            return {"files": files}, ['<edit/> is empty: put <file src="..."> elements inside']
        while True:
            child = yield from self._next("edit")
            if child is END:
                break
            if child is EOF:
                errors.append("unclosed <edit>: the reply ended before </edit>")
                break
            if child.name != "file" or child.closing:
                errors.append(f"<edit> may contain only <file> elements, found <{child.name}>")
                if err := (yield from self._skip(child)):
                    errors.append(err)
                    break
                continue
            entry, errs, ended = yield from self._edit_file(child, len(files) + 1)
            files.append(entry)
            errors += errs
            if ended:
                break
        if not files and not errors:
            errors.append('<edit> has no <file src="..."> element')
        return {"files": files}, errors

    def _edit_file(self, tag: Tag, n: int) -> Steps:
        src = (tag.attrs or {}).get("src", "")
        label = f'<file src="{src}">' if src else f"<file> #{n}"
        errors = [tag.error] if tag.error else []
        if not src:
            errors.append(f"<file> #{n} in <edit> needs a src attribute (the file's path)")
        pairs: list[dict[str, str]] = []
        entry: dict[str, Any] = {**(tag.attrs or {}), "src": src, "pairs": pairs}
        if tag.selfclosing:
            errors.append(f"{label} has no <find>/<replace> pairs")
            return entry, errors, False
        find: str | None = None
        while True:
            child = yield from self._next("file")
            if child is END:
                break
            if child is EOF:
                errors.append(f"unclosed {label}: the reply ended before </file>")
                return entry, errors, True
            if child.closing or child.name not in ("find", "replace"):
                errors.append(
                    f"{label} may contain only <find> and <replace>, found <{child.name}>"
                )
                if err := (yield from self._skip(child)):
                    return entry, [*errors, err], True
                continue
            text, err = ("", None) if child.selfclosing else (yield from self._raw(child.name))
            if err:
                return entry, [*errors, err], True
            if child.name == "find":
                if find is not None:
                    errors.append(f"{label}: <find> #{len(pairs) + 1} has no <replace> after it")
                find = text
            elif find is None:
                errors.append(f"{label}: <replace> #{len(pairs) + 1} has no <find> before it")
            else:
                pairs.append({"find": find, "replace": text})
                find = None
        if find is not None:
            errors.append(f"{label}: <find> #{len(pairs) + 1} has no <replace> after it")
        if not pairs and not errors:
            errors.append(f"{label} has no <find>/<replace> pairs")
        return entry, errors, False

    def _read(self, tag: Tag, schema: Mapping[str, Any] | None) -> Steps:
        groups: dict[str, list[dict[str, Any]]] = {"files": [], "searches": []}
        errors: list[str] = []
        key_attr = {"file": ("files", "src"), "search": ("searches", "pattern")}
        while not tag.selfclosing:
            child = yield from self._next("read")
            if child is END:
                break
            if child is EOF:
                errors.append("unclosed <read>: the reply ended before </read>")
                break
            if child.closing or child.name not in key_attr:
                errors.append(f"<read> may contain only <file> and <search>, found <{child.name}>")
                if err := (yield from self._skip(child)):
                    errors.append(err)
                    break
                continue
            group, key = key_attr[child.name]
            item: dict[str, Any] = dict(child.attrs or {})
            if child.error:
                errors.append(child.error)
            if not child.selfclosing:
                text, err = yield from self._raw(child.name)
                if err:
                    errors.append(err)
                    break
                if text.strip() and key not in item:
                    item[key] = text.strip()
            if not item.get(key):
                errors.append(f"<{child.name}> in <read> needs a {key} attribute")
            groups[group].append(self._typed_item(schema, group, item, errors))
        if not groups["files"] and not groups["searches"] and not errors:
            errors.append(
                '<read> is empty: put <file src="..."/> or <search pattern="..."/> inside'
            )
        params: dict[str, Any] = {k: v for k, v in groups.items() if v}
        return params, errors

    @staticmethod
    def _typed_item(
        schema: Mapping[str, Any] | None, group: str, item: dict[str, Any], errors: list[str]
    ) -> dict[str, Any]:
        items = (property_schema(schema, group) or {}).get("items")
        out: dict[str, Any] = {}
        for k, v in item.items():
            try:
                sub = property_schema(items, k) if isinstance(items, Mapping) else None
                out[k] = coerce(v, sub, f"<read>.{group}.{k}")
            except CoerceError as exc:
                errors.append(str(exc))
        return out


def _resume_point(raw: str, start: int) -> int | None:
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


class ToolsXml(Dialect):
    """KaryiAgent ToolsXML v1.0."""

    name = "toolsxml"
    summary = "KaryiAgent ToolsXML v1.0: one <tools> block of tags, raw code inside"

    def parser(
        self, schemas: SchemaLookup = no_schemas, state: DialectState | None = None
    ) -> StreamParser:
        """See `Dialect.parser`."""
        return ToolsXmlParser(schemas, state)

    def render_results(self, outcomes: Sequence[CallOutcome]) -> str:
        """One `<tools_result>` block, one `<result>` per call in call order."""
        lines = ["<tools_result>"]
        for o in outcomes:
            attrs = {"index": str(o.call.index), "tool": o.call.name, "status": o.status_word}
            if o.error_code and not o.success:
                attrs["code"] = o.error_code
            lines.append(element("result", attrs, o.content))
        lines.append("</tools_result>")
        return "\n".join(lines)

    def format_call(self, name: str, params: Mapping[str, Any]) -> str:
        """A call inside its `<tools>` block, written the way the prompt teaches it."""
        # Not indented: element text is raw, so indenting it would change the values the
        # example shows (a multi-line <content> or <find> would gain leading spaces).
        return "<tools>\n" + _format_element(name, params) + "\n</tools>"

    def instructions(self) -> str:
        """The ToolsXML rules, for the system prompt."""
        return _INSTRUCTIONS


def _format_element(name: str, params: Mapping[str, Any]) -> str:
    if name in RAW_TAGS:
        body = str(params.get(RAW_TAGS[name], ""))
        extra = {k: _attr(v) for k, v in params.items() if k != RAW_TAGS[name]}
        return f"{start_tag(name, extra)}{body}</{name}>"
    if name == "edit" and "files" in params:
        return _format_edit(params)
    if name == "read" and ("files" in params or "searches" in params):
        return _format_read(params)
    attrs: dict[str, str] = {}
    children: list[str] = []
    for key, value in params.items():
        if isinstance(value, str) and ("\n" in value or len(value) > 60 or "<" in value):
            children.append(f"  <{key}>{value}</{key}>")
        elif isinstance(value, list):
            children += [f"  <{key}>{_attr(v)}</{key}>" for v in value]
        else:
            attrs[key] = _attr(value)
    tag = start_tag(name, attrs)
    if not children:
        return tag[:-1] + "/>"
    return "\n".join([tag, *children, f"</{name}>"])


def _builtin_shape(schema: Mapping[str, Any] | None, *keys: str) -> bool:
    """True unless the toolkit's tool of this name is another profile's (vecli's `edit`)."""
    if schema is None:
        return True
    props = schema.get("properties")
    return not isinstance(props, Mapping) or any(k in props for k in keys)


def _attr(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _format_edit(params: Mapping[str, Any]) -> str:
    out = ["<edit>"]
    for f in params.get("files", []):
        out.append(f"  {start_tag('file', {'src': str(f.get('src', ''))})}")
        for p in f.get("pairs", []):
            out.append(f"    <find>{p.get('find', '')}</find>")
            out.append(f"    <replace>{p.get('replace', '')}</replace>")
        out.append("  </file>")
    out.append("</edit>")
    return "\n".join(out)


def _format_read(params: Mapping[str, Any]) -> str:
    out = ["<read>"]
    for f in params.get("files", []):
        out.append("  " + start_tag("file", {k: _attr(v) for k, v in f.items()})[:-1] + "/>")
    for s in params.get("searches", []):
        out.append("  " + start_tag("search", {k: _attr(v) for k, v in s.items()})[:-1] + "/>")
    out.append("</read>")
    return "\n".join(out)


_INSTRUCTIONS = f"""\
# How to use tools (KaryiAgent ToolsXML)
To act, end your reply with ONE <tools> block holding one or more tool elements, then
stop and wait: the results come back in a <tools_result> block in the next message.
Never write <tools_result> yourself. Calls in one block may run in parallel; calls on
the same file or terminal run in the order written.

Element text is raw: write code exactly as it is, with no XML escaping (<, > and & are
fine). If the text itself contains the element's closing tag (for example "</find>"),
wrap the whole text in {CDATA_OPEN}...{CDATA_CLOSE} instead. Attribute values are
XML-quoted: escape & as &amp; and " as &quot; inside them.
Use $KARYI{{NAME}} anywhere to insert a secret the user stored; never ask for the value.
Results: <result index="N" tool="NAME" status="ok|error|running" [code="..."]> with
the output as CDATA, one per call, in call order.
"""


def cdata_example(text: str) -> str:
    """Documentation helper: how a value needing CDATA is written."""
    return cdata(text)
