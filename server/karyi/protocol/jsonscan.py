"""Streaming JSON helpers: find where a value ends, and forgive the usual model slips."""

from __future__ import annotations

import json
import re
from collections.abc import Generator
from typing import Any

from karyi.protocol.scanner import Scanner

_IN_STRING = re.compile(r'["\\]')
_STRUCTURE = re.compile(r'["{}\[\]]')
_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|,(\s*[}\]])', re.S)
_FENCE = re.compile(r"\A\s*```[\w-]*[ \t]*\n?|\n?[ \t]*```\s*\Z")


def balanced(sc: Scanner) -> Generator[None, None, str | None]:
    """Consume one JSON object or array starting at the scanner's position.

    Tracks strings and escapes so braces inside strings do not count. Returns the text,
    or None when the reply ended before the value was closed.
    """
    parts: list[str] = []
    depth = 0
    in_string = False
    escaped = False
    while True:
        if escaped:
            if sc.pos < len(sc.buf):
                sc.consume(sc.pos + 1, parts.append)
                escaped = False
                continue
            if sc.eof:
                return None
            yield
            continue
        m = (_IN_STRING if in_string else _STRUCTURE).search(sc.buf, sc.pos)
        if m is None:
            sc.consume(len(sc.buf), parts.append)
            if sc.eof:
                return None
            yield
            continue
        sc.consume(m.end(), parts.append)
        ch = m.group()
        if in_string:
            if ch == "\\":
                escaped = True
            else:
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        else:
            depth -= 1
            if depth <= 0:
                return "".join(parts)


def strip_trailing_commas(text: str) -> str:
    """Remove commas that directly precede `}` or `]` (outside strings)."""
    return _TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), text)


def strip_fences(text: str) -> str:
    """Remove a Markdown code fence around a JSON value."""
    return _FENCE.sub("", text)


class JsonSlip(ValueError):
    """Text that is not JSON even after forgiving fences and trailing commas."""


def loads_lenient(text: str) -> Any:
    """`json.loads`, forgiving code fences and trailing commas; JsonSlip with the position
    of the first real error otherwise."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as first:
        relaxed = strip_trailing_commas(strip_fences(text))
        try:
            return json.loads(relaxed)
        except json.JSONDecodeError:
            raise JsonSlip(f"{first.msg} at line {first.lineno} column {first.colno}") from first
