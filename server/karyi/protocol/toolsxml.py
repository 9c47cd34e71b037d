"""`toolsxml`: KaryiAgent ToolsXML v1.0 (docs/protocol.md), parsed as it streams.

A reply is prose plus one `<tools>` block. Inside it, `<command>`, `<edit>`, `<read>`,
`<input>` and `<ctrl>` have their documented structure; every other registered tool is a tag
of its own name with attributes or child elements. Element text is raw code: `<`, `>`
and `&` need no escaping and survive byte-for-byte; CDATA is accepted too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from karyi.protocol.base import Dialect, StreamParser, no_schemas
from karyi.protocol.calls import CallOutcome, DialectState, SchemaLookup
from karyi.protocol.toolsxml_parser import ToolsXmlParser
from karyi.protocol.toolsxml_tags import RAW_TAGS
from karyi.protocol.xmlcontent import (
    CDATA_CLOSE,
    CDATA_OPEN,
)
from karyi.protocol.xmltext import cdata, element, start_tag


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
