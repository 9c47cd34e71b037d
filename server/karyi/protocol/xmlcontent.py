"""Reading the inside of XML-ish elements whose text is raw code, not XML.

Shared by the ToolsXML dialect: attributes go through lxml (quoting, entities), while
element text is kept byte-for-byte except that text made only of CDATA sections is
unwrapped, so `<find><![CDATA[a ]]]]><![CDATA[> b]]></find>` reads as `a ]]> b`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lxml import etree

from karyi.protocol.coerce import CoerceError, coerce, is_array, property_schema

CDATA_OPEN = "<![CDATA["
CDATA_CLOSE = "]]>"
TAG_NAME = re.compile(r"[A-Za-z_][\w.-]*")
_CHILD_OPEN = re.compile(
    r"<([A-Za-z_][\w.-]*)((?:\s+[^\s=<>/]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>"
)
_SPACE = re.compile(r"\s*")


class RawText:
    """Collects an element's text as it streams: plain parts and CDATA sections."""

    def __init__(self) -> None:
        self.literal: list[str] = []
        self.cdata: list[str] = []
        self.plain_is_space = True

    def plain(self, text: str) -> None:
        """Text outside CDATA, kept as written."""
        self.literal.append(text)
        if self.plain_is_space and text.strip():
            self.plain_is_space = False

    def section(self, inner: str, closed: bool = True) -> None:
        """One CDATA section's content."""
        self.literal.append(CDATA_OPEN + inner + (CDATA_CLOSE if closed else ""))
        self.cdata.append(inner)

    def value(self) -> str:
        """Unwrapped CDATA when the text is nothing else; the literal text otherwise."""
        if self.cdata and self.plain_is_space:
            return "".join(self.cdata)
        return "".join(self.literal)

    def value_with(self, open_section: str | None) -> str:
        """`value()` as it reads so far, with a CDATA section still open (a partial call)."""
        if open_section is None:
            return self.value()
        if self.plain_is_space:
            return "".join(self.cdata) + open_section
        return "".join(self.literal) + CDATA_OPEN + open_section


def parse_attrs(name: str, attr_text: str) -> tuple[dict[str, str], str | None]:
    """Attributes of a start tag, decoded by lxml; an error message if they are not XML."""
    if not attr_text.strip():
        return {}, None
    try:
        el = etree.fromstring(f"<{name} {attr_text}/>")
    except etree.XMLSyntaxError as exc:
        msg = str(exc).split(", line ")[0]
        return {}, f'attributes of <{name}> are not well-formed ({msg}); write name="value"'
    return {str(k): str(v) for k, v in el.attrib.items()}, None


def element_body(text: str, pos: int, name: str) -> tuple[str, int] | None:
    """The raw content of `<name>` starting at `pos`, and the index after `</name>`."""
    close = f"</{name}>"
    raw = RawText()
    while True:
        i = text.find(close, pos)
        j = text.find(CDATA_OPEN, pos)
        if i < 0:
            return None
        if 0 <= j < i:
            raw.plain(text[pos:j])
            k = text.find(CDATA_CLOSE, j + len(CDATA_OPEN))
            if k < 0:
                return None
            raw.section(text[j + len(CDATA_OPEN) : k])
            pos = k + len(CDATA_CLOSE)
            continue
        raw.plain(text[pos:i])
        return raw.value(), i + len(close)


@dataclass(frozen=True)
class Child:
    """One child element of a tool element: a parameter value."""

    name: str
    attrs: str
    value: str


def parse_children(content: str) -> list[Child] | None:
    """The child elements of `content`, or None when it is not only elements."""
    pos = 0
    out: list[Child] = []
    while True:
        m = _SPACE.match(content, pos)
        pos = m.end() if m else pos
        if pos >= len(content):
            return out
        if content.startswith("<!--", pos):
            end = content.find("-->", pos + 4)
            if end < 0:
                return None
            pos = end + 3
            continue
        m = _CHILD_OPEN.match(content, pos)
        if not m:
            return None
        name, attrs, selfclosing = m.groups()
        pos = m.end()
        if selfclosing:
            out.append(Child(name, attrs, ""))
            continue
        body = element_body(content, pos, name)
        if body is None:
            return None
        out.append(Child(name, attrs, body[0]))
        pos = body[1]


def partial_children(content: str) -> tuple[list[Child], str | None]:
    """The child elements of a tool element still being written: the complete ones, and
    the name of the last one when it is open (its value so far is the last Child's).
    Text that is not child elements gives no children."""
    out: list[Child] = []
    pos = 0
    while True:
        m = _SPACE.match(content, pos)
        pos = m.end() if m else pos
        m = _CHILD_OPEN.match(content, pos)
        if not m or m.group(3):
            return out, None
        name = m.group(1)
        body = element_body(content, m.end(), name)
        if body is None:
            value = unwrap_open(_cut_open_tail(content[m.end() :], name))
            out.append(Child(name, m.group(2), value))
            return out, name
        out.append(Child(name, m.group(2), body[0]))
        pos = body[1]


def unwrap_open(content: str) -> str:
    """`unwrap` of element text that is still arriving: an open CDATA section counts."""
    j = content.rfind(CDATA_OPEN)
    if j < 0 or content.find(CDATA_CLOSE, j) >= 0:
        return unwrap(content)
    return _raw_text(content[:j]).value_with(content[j + len(CDATA_OPEN) :])


def _cut_open_tail(text: str, name: str) -> str:
    """`text` without a trailing start of its own end tag (`</na` of `</name>`)."""
    close = f"</{name}>"
    i = text.rfind("<", max(0, len(text) - len(close)))
    return text[:i] if i >= 0 and close.startswith(text[i:]) else text


def unwrap(content: str) -> str:
    """Element text with the pure-CDATA rule applied (see RawText.value)."""
    return _raw_text(content).value()


def _raw_text(content: str) -> RawText:
    raw = RawText()
    pos = 0
    while True:
        j = content.find(CDATA_OPEN, pos)
        k = content.find(CDATA_CLOSE, j + len(CDATA_OPEN)) if j >= 0 else -1
        if j < 0 or k < 0:
            raw.plain(content[pos:])
            return raw
        raw.plain(content[pos:j])
        raw.section(content[j + len(CDATA_OPEN) : k])
        pos = k + len(CDATA_CLOSE)


def typed_value(schema: Mapping[str, Any] | None, key: str, values: list[str], where: str) -> Any:
    """One parameter from its text value(s), typed by the tool's schema."""
    sub = property_schema(schema, key)
    if is_array(sub):
        assert sub is not None
        items = sub.get("items")
        item_schema = items if isinstance(items, Mapping) else None
        if len(values) == 1:
            return coerce(values[0], sub, f"{where}.{key}")
        return [coerce(v, item_schema, f"{where}.{key}[{i}]") for i, v in enumerate(values)]
    if len(values) > 1:
        raise CoerceError(
            f"{where}.{key}: given {len(values)} times, but it takes a single value"
            " (repeat a child only for list parameters)"
        )
    return coerce(values[0], sub, f"{where}.{key}")


def required_single(schema: Mapping[str, Any] | None) -> str | None:
    """The one required parameter, when a tool has exactly one: it may be given as text."""
    if not schema:
        return None
    req = schema.get("required")
    if isinstance(req, list) and len(req) == 1 and isinstance(req[0], str):
        return req[0]
    return None


def generic_params(
    name: str,
    attrs: Mapping[str, str],
    content: str,
    schema: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """Parameters of a tool element: attributes, child elements, or text for its one
    required parameter. Raises CoerceError with a message naming the parameter."""
    where = f"<{name}>"
    grouped: dict[str, list[str]] = {k: [v] for k, v in attrs.items()}
    from_attr = set(grouped)
    children = parse_children(content) if content.strip() else []
    if children is None:
        primary = required_single(schema)
        if primary is None:
            raise CoerceError(
                f"{where}: text directly inside the element is not a parameter;"
                " give parameters as attributes or as child elements <param>value</param>"
            )
        if primary in grouped:
            raise CoerceError(f"{where}.{primary}: given both as an attribute and as text")
        grouped[primary] = [unwrap(content)]
    else:
        for child in children:
            if child.attrs.strip():
                raise CoerceError(
                    f"{where}.{child.name}: a parameter element takes its value as text,"
                    " not attributes"
                )
            if child.name in from_attr:
                raise CoerceError(
                    f"{where}.{child.name}: given both as an attribute and as a child element"
                )
            grouped.setdefault(child.name, []).append(child.value)
    return {k: typed_value(schema, k, v, where) for k, v in grouped.items()}


def partial_params(
    name: str, attrs: Mapping[str, str], content: str, schema: Mapping[str, Any] | None
) -> tuple[dict[str, Any], str | None]:
    """`generic_params` of a tool element still being written: attributes and complete
    child elements typed by the schema (a value that does not type yet is left out), the
    open child's text so far, and that child's name (None when no child is open)."""
    params: dict[str, Any] = {}
    for key, value in attrs.items():
        try:
            params[key] = typed_value(schema, key, [value], f"<{name}>")
        except CoerceError:
            continue
    children, open_name = partial_children(content)
    for child in children:
        if child.name == open_name:
            params[child.name] = child.value
            continue
        try:
            params[child.name] = typed_value(schema, child.name, [child.value], f"<{name}>")
        except CoerceError:
            continue
    return params, open_name
