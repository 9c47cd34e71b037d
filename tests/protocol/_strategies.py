"""Hypothesis strategies: random replies in each dialect, with the calls they hold.

A `Reply` knows its text, the calls a parser must find in it, where each call ends (so
tests can check a call is emitted as soon as it is complete) and the expected text of
each channel.
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from ._helpers import cdata, obj_schema, xml_attr


@dataclass
class Reply:
    """A generated reply and what parsing it must give."""

    text: str = ""
    ends: list[int] = field(default_factory=list)
    calls: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)

    def add(self, text: str) -> None:
        self.text += text

    def add_call(self, text: str, name: str, params: dict[str, Any], call_id: str) -> None:
        self.text += text
        self.ends.append(len(self.text))
        self.calls.append((name, params, call_id))

    def say(self, text: str, channel: str = "text") -> None:
        """Text that the parser must report on `channel` (and that is written as is)."""
        self.text += text
        if text:
            self.texts[channel] = self.texts.get(channel, "") + text


# -- text pieces --------------------------------------------------------------------------

# Characters XML 1.0 allows, minus CR (XML parsers turn CRLF into LF).
XML_CHARS = st.characters(
    codec="utf-8",
    exclude_categories=("Cs", "Cc"),
    exclude_characters="\ufffe\uffff",
) | st.sampled_from("\n\t")

CODE_ALPHABET = (
    string.ascii_letters + string.digits + " \t\n<>&\"'{}[]()/\\$;|=*+-_.,:!?#%@^~`" + "é中😀"
)
CODE_FRAGMENTS = [
    '<div className="a">{x && <b/>}</div>',
    "Map<String, List<Integer>>",
    "cmd > out 2>&1 < in",
    "&amp;",
    "&lt;",
    "]]>",
    "$KARYI{GITHUB_TOKEN}",
    "if (a < b && c > d) {}",
    "<!-- not a comment here -->",
    "</div>",
    "<br/>",
    "\\n",
]
PROSE_ALPHABET = string.ascii_letters + string.digits + " \n\t.,;:!?'\"()[]{}&>/\\-_*#é中😀"
XML_PROSE_FRAGMENTS = ["a < b", "x<y", "</tools>", "<b>bold</b>", "&amp;", "]]>", "<toolsy>"]


def code(forbidden: tuple[str, ...] = (), max_pieces: int = 5) -> st.SearchStrategy[str]:
    """Raw code: unescaped `<`, `>`, `&`, quotes, JSX, generics, redirects."""
    pieces = st.one_of(st.text(CODE_ALPHABET, max_size=12), st.sampled_from(CODE_FRAGMENTS))
    bad = ("<![CDATA[", *forbidden)
    return (
        st.lists(pieces, max_size=max_pieces)
        .map("".join)
        .filter(lambda s: not any(b in s for b in bad))
    )


def prose(fragments: list[str]) -> st.SearchStrategy[str]:
    """Text outside calls: no `<` except in fragments that open nothing."""
    pieces = st.one_of(st.text(PROSE_ALPHABET, max_size=15), st.sampled_from(fragments))
    return st.lists(pieces, max_size=4).map("".join)


def attr_text(min_size: int = 0) -> st.SearchStrategy[str]:
    """An attribute value: any XML character (written escaped)."""
    return st.one_of(
        st.text(XML_CHARS, min_size=min_size, max_size=15),
        st.sampled_from(["src/app.tsx", "a&b", 'say "hi"', "it's", "$KARYI{TOKEN}", "x<y>z"]),
    ).filter(lambda s: len(s) >= min_size)


def spacing() -> st.SearchStrategy[str]:
    """Whitespace or a comment between elements."""
    return st.sampled_from(["", " ", "\n", "\n  ", "\n    ", "\n<!-- note -->\n  "])


def ws() -> st.SearchStrategy[str]:
    """Whitespace only."""
    return st.sampled_from(["", " ", "\n", "\n  "])


# -- toolsxml -----------------------------------------------------------------------------


@st.composite
def toolsxml_call(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
    """(xml, name, params) for one ToolsXML tool element."""
    kind = draw(st.sampled_from(["command", "input", "ctrl", "edit", "read", "get_value", "gen"]))
    sp = draw(spacing())
    if kind == "command":
        first = st.sampled_from(string.ascii_letters + string.digits + "<>&$\"'{[(/\\.-")
        line = st.builds(
            lambda a, b: a + b, first, code(("</command>",), 3).map(lambda s: s.split("\n")[0])
        )
        lines = draw(st.lists(line, min_size=1, max_size=4))
        body = "".join("\n    " + ln for ln in lines) + "\n  "
        if "</command>" in body or "<![CDATA[" in body:
            body = "\n    true\n  "
            lines = ["true"]
        return f"<command>{body}</command>", "command", {"command": "\n".join(lines)}
    if kind == "input":
        text = draw(code(("</input>",)))
        return f"<input>{text}</input>", "input", {"text": text}
    if kind == "ctrl":
        key = draw(st.sampled_from(["c", "C", "d", "z", "\\"]))
        pad = draw(st.sampled_from(["", " ", "\n"]))
        return f"<ctrl>{pad}{key}{pad}</ctrl>", "ctrl", {"key": key}
    if kind == "edit":
        files = []
        parts = ["<edit>"]
        for _ in range(draw(st.integers(1, 3))):
            src = draw(attr_text(1))
            parts.append(f"{sp}<file src={xml_attr(src)}>")
            pairs = []
            for _ in range(draw(st.integers(1, 3))):
                pair = {}
                for tag in ("find", "replace"):
                    if draw(st.booleans()):
                        value = draw(code((f"</{tag}>",)))
                        parts.append(f"{sp}<{tag}>{value}</{tag}>")
                    else:  # CDATA: anything at all, even the closing tag
                        value = draw(st.text(max_size=20) | st.sampled_from(CODE_FRAGMENTS))
                        value += draw(st.sampled_from(["", f"</{tag}>", "]]>", "<![CDATA["]))
                        parts.append(f"{sp}<{tag}>{cdata(value)}</{tag}>")
                    pair[tag] = value
                pairs.append(pair)
            parts.append(f"{sp}</file>")
            files.append({"src": src, "pairs": pairs})
        parts.append(f"{sp}</edit>")
        return "".join(parts), "edit", {"files": files}
    if kind == "read":
        items = draw(st.lists(st.booleans(), min_size=1, max_size=4))
        params: dict[str, Any] = {}
        parts = ["<read>"]
        for is_file in items:
            if is_file:
                src = draw(attr_text(1))
                parts.append(f"{sp}<file src={xml_attr(src)}/>")
                params.setdefault("files", []).append({"src": src})
            else:
                pattern = draw(attr_text(1))
                item = {"pattern": pattern}
                attrs = f" pattern={xml_attr(pattern)}"
                if draw(st.booleans()):
                    item["path"] = draw(attr_text())
                    attrs += f" path={xml_attr(item['path'])}"
                parts.append(f"{sp}<search{attrs}/>")
                params.setdefault("searches", []).append(item)
        parts.append(f"{sp}</read>")
        return "".join(parts), "read", params
    if kind == "get_value":
        params = {"key": draw(st.from_regex(r"[A-Z_][A-Z0-9_]{0,10}", fullmatch=True))}
        params["reason"] = draw(attr_text())
        if draw(st.booleans()):
            params["note"] = draw(attr_text())
        attrs = "".join(f" {k}={xml_attr(v)}" for k, v in params.items())
        return f"<get_value{attrs}/>", "get_value", params
    name = draw(st.sampled_from(["grep", "glob", "web_fetch", "my.tool", "x-y", "_t"]))
    keys = draw(st.lists(st.sampled_from(["pattern", "path", "query", "url", "n"]), unique=True))
    attrs = ""
    children = []
    params = {}
    for key in keys:
        if draw(st.booleans()):
            params[key] = draw(attr_text())
            attrs += f" {key}={xml_attr(params[key])}"
        else:
            params[key] = draw(code((f"</{key}>", f"</{name}>")))
            children.append(f"{sp}<{key}>{params[key]}</{key}>")
    if not children and draw(st.booleans()):
        return f"<{name}{attrs}{draw(ws())}/>", name, params
    return f"<{name}{attrs}>{''.join(children)}{sp}</{name}>", name, params


@st.composite
def toolsxml_reply(draw: st.DrawFn) -> Reply:
    r = Reply()
    r.say(draw(prose([*XML_PROSE_FRAGMENTS, "`<tools>` "])))
    r.add(draw(st.sampled_from(["<tools>", "<tools >", "<tools>\n"])))
    for i, (xml, name, params) in enumerate(draw(st.lists(toolsxml_call(), max_size=4))):
        r.add(draw(spacing()))
        r.add_call(xml, name, params, f"call_{i + 1}")
    r.add(draw(spacing()) + "</tools>")
    r.say(draw(prose([*XML_PROSE_FRAGMENTS, "`<tools>` "])))
    return r


# -- agentxml -----------------------------------------------------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
    | st.sampled_from(["}]</tools>", '{"a": [1, 2]}', "\\", "```", "\u2028"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
AGENT_PROSE = ["a < b", "<tools_result>[]</tools_result>", "`<tools>` ", "<user_task>t</user_task>"]


@st.composite
def agentxml_reply(draw: st.DrawFn) -> Reply:
    r = Reply()
    r.say(draw(prose(AGENT_PROSE)))
    if draw(st.booleans()):
        r.add("<thinking>")
        r.say(draw(code(("</thinking>",))), "thinking")
        r.add("</thinking>")
    r.say(draw(prose(AGENT_PROSE)))
    n = draw(st.integers(0, 4))
    ids = draw(
        st.lists(
            st.text(min_size=1, max_size=6) | st.integers(0, 10**6),
            min_size=n,
            max_size=n,
            unique_by=str,
        )
    )
    indent = draw(st.sampled_from([None, 2]))
    ascii_only = draw(st.booleans())
    fence = draw(st.booleans())
    bare = n == 1 and draw(st.booleans())
    r.add("<tools>" + draw(ws()) + ("```json\n" if fence else "") + ("" if bare else "["))
    for i, call_id in enumerate(ids):
        name = draw(st.text(min_size=1, max_size=10))
        params = draw(st.dictionaries(st.text(max_size=6), JSON, max_size=3))
        key = draw(st.sampled_from(["parameters", "parameters", "params", "arguments", "input"]))
        written: Any = json.dumps(params) if draw(st.integers(0, 5)) == 0 else params
        obj = {"id": call_id, "name": name, key: written}
        text = json.dumps(obj, indent=indent, ensure_ascii=ascii_only)
        if draw(st.integers(0, 4)) == 0:  # a trailing comma, the usual slip
            text = text[:-1].rstrip() + ",}"
        r.add_call(("" if i == 0 else ",\n") + text, name, params, str(call_id))
    if not bare:
        r.add(("," if n and draw(st.booleans()) else "") + "]")
    r.add(("\n```" if fence else "") + draw(ws()) + "</tools>")
    r.say(draw(prose(AGENT_PROSE)))
    if draw(st.booleans()):
        r.add("<final_answer>")
        r.say(draw(code(("</final_answer>",))), "answer")
        r.add("</final_answer>")
    r.say(draw(prose(AGENT_PROSE)))
    return r


# -- toolcall -----------------------------------------------------------------------------

TOOLCALL_SCHEMA = obj_schema(
    query="string", count="integer", flag="boolean", body="string", ratio="number"
)
TOOLCALL_PROSE = ["a < b", "<tool_result>x</tool_result>", "<tool_callx>", "&", "]]>"]


@st.composite
def toolcall_value(draw: st.DrawFn, key: str) -> tuple[str, Any]:
    """(text as written, typed value) for one parameter of TOOLCALL_SCHEMA."""
    kind = TOOLCALL_SCHEMA["properties"][key]["type"]
    if kind == "string":
        value = draw(
            st.text(XML_CHARS, max_size=20) | st.sampled_from([*CODE_FRAGMENTS, "</tool_call>"])
        )
        return cdata(value), value
    if kind == "integer":
        n = draw(st.integers(-(10**9), 10**9))
        return (cdata(str(n)) if draw(st.booleans()) else str(n)), n
    if kind == "boolean":
        b = draw(st.booleans())
        return cdata("true" if b else "false"), b
    x = draw(st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: round(f, 3)))
    return cdata(repr(x)), x


@st.composite
def toolcall_reply(draw: st.DrawFn) -> Reply:
    r = Reply()
    r.say(draw(prose(TOOLCALL_PROSE)))
    for _ in range(draw(st.integers(0, 4))):
        name = draw(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True))
        keys = draw(st.lists(st.sampled_from(list(TOOLCALL_SCHEMA["properties"])), unique=True))
        seed_layout = draw(st.booleans())
        nl, ind = ("\n", "  ") if seed_layout else ("", "")
        params: dict[str, Any] = {}
        lines = [f"<tool_call>{nl}{ind}<name>{name}</name>{nl}{ind}<params>{nl}"]
        for key in keys:
            written, params[key] = draw(toolcall_value(key))
            lines.append(f"{ind}{ind}<{key}>{written}</{key}>{nl}")
        lines.append(f"{ind}</params>{nl}</tool_call>")
        r.add_call("".join(lines), name, params, f"call_{len(r.calls) + 1}")
        r.say(draw(prose(TOOLCALL_PROSE)))
    return r


REPLIES = {
    "toolsxml": toolsxml_reply(),
    "agentxml": agentxml_reply(),
    "toolcall": toolcall_reply(),
}

# Arbitrary text built from the pieces parsers care about, for chunking and fuzz tests.
XMLISH = [
    "<", "</", ">", "/>", "<tools>", "</tools>", "<tools", "<![CDATA[", "]]>", "<edit>",
    "</edit>", '<file src="a">', "<file src=", "</file>", "<find>", "</find>", "<replace>",
    "</replace>", "<command>", "</command>", "<input>", "</input>", "<ctrl>", "</ctrl>",
    "<read>", "</read>", '<search pattern="x"/>', "<grep", '<grep pattern="T"/>', "<!--",
    "-->", '"', "'", "=", "{", "}", "[", "]", ",", ":", "\\", "\x00", "\x01", "\x1b", "😀",
    " ", "\n", "\r", "x", "ab", "<thinking>", "</thinking>", "<final_answer>",
    "</final_answer>", '"id"', '"name"', '"parameters"', '"1"', "1", "true", "null",
    "<tool_call>", "</tool_call>", "<name>", "</name>", "<params>", "</params>", "<q>",
    "</q>", "```", "`", "&amp;", "&", "&#", ";",
]  # fmt: skip
xmlish_text = st.lists(st.one_of(st.sampled_from(XMLISH), st.text(max_size=4)), max_size=60).map(
    "".join
)
