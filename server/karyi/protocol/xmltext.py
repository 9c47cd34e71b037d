"""Safe XML output for result blocks: lxml-escaped tags, CDATA that survives `]]>`.

Tool output is arbitrary bytes decoded as text: it may contain `]]>`, which ends a CDATA
section, and control characters, which XML 1.0 cannot carry at all. Both are handled
here so every result block parses back (with lxml) to exactly what the tool said,
apart from forbidden control characters, which are written as visible `\\xNN` escapes.
"""

from __future__ import annotations

import re

from lxml import etree

_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _escape_forbidden(m: re.Match[str]) -> str:
    return f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}"


def xml_safe(text: str) -> str:
    """Replace characters XML 1.0 forbids with a visible escape."""
    return _FORBIDDEN.sub(_escape_forbidden, text)


def escape_text(text: str) -> str:
    """`text` as XML character data: `&`, `<` and `>` escaped, forbidden characters made
    visible (for short values such as a tool name, where CDATA would be noise)."""
    return xml_safe(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cdata(text: str) -> str:
    """`text` as one or more CDATA sections; `]]>` is split across two sections."""
    safe = xml_safe(text)
    return "<![CDATA[" + safe.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def start_tag(name: str, attrs: dict[str, str]) -> str:
    """An opening tag with attribute values escaped by lxml."""
    el = etree.Element(name, {k: xml_safe(v) for k, v in attrs.items()})
    empty = etree.tostring(el, encoding="unicode")  # '<name a="1"/>'
    return empty[:-2] + ">"


def element(name: str, attrs: dict[str, str], body: str, *, raw: bool = False) -> str:
    """A whole element whose body is CDATA (or `raw` markup already made safe)."""
    inner = body if raw else (cdata(body) if body else "")
    return f"{start_tag(name, attrs)}{inner}</{name}>"
