"""Streaming JSON helpers: find where a value ends, and forgive the usual model slips."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Generator
from typing import Any

import jiter

from karyi.protocol.scanner import Scanner

_IN_STRING = re.compile(r'["\\]')
_STRUCTURE = re.compile(r'["{}\[\]]')
_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|,(\s*[}\]])', re.S)
_FENCE = re.compile(r"\A\s*```[\w-]*[ \t]*\n?|\n?[ \t]*```\s*\Z")


def balanced(sc: Scanner, parts: list[str] | None = None) -> Generator[None, None, str | None]:
    """Consume one JSON object or array starting at the scanner's position.

    Tracks strings and escapes so braces inside strings do not count. Returns the text,
    or None when the reply ended before the value was closed. `parts`, when given,
    collects the text as it is consumed (what a partial call is read from).
    """
    parts = [] if parts is None else parts
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
    """Text that is not JSON even after forgiving fences and trailing commas, or JSON
    beyond the stated limits. `reason` and `pos` (a character offset, when the text is
    not JSON) let a caller phrase it its own way."""

    def __init__(self, message: str, *, reason: str = "", pos: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message
        self.pos = pos


MAX_INT_DIGITS = 1000
"""Integers a model may write in JSON: longer ones are refused, not left to crash later."""
MAX_DEPTH = 200
"""How deeply JSON a model writes may nest."""


def _int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise JsonSlip(f"an integer of {len(digits)} digits (at most {MAX_INT_DIGITS})")
    return int(digits)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonSlip(f"the number {text[:20]} is too large (not finite)")
    return value


def _constant(name: str) -> Any:
    raise JsonSlip(f"{name} is not JSON (numbers must be finite)")


def load_json(text: str) -> Any:
    """`json.loads` within stated limits: JsonSlip (a ValueError) for text that is not
    JSON, an integer longer than MAX_INT_DIGITS, a number that is not finite (1e999, NaN,
    Infinity), or nesting deeper than MAX_DEPTH; never
    another exception, whatever the text."""
    try:
        value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise JsonSlip(
            f"{exc.msg} at line {exc.lineno} column {exc.colno}", reason=exc.msg, pos=exc.pos
        ) from exc
    except RecursionError:
        raise JsonSlip(f"nested more than {MAX_DEPTH} levels deep") from None
    if _depth(value) > MAX_DEPTH:
        raise JsonSlip(f"nested more than {MAX_DEPTH} levels deep")
    return value


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            stack.extend(
                (v, level + 1) for v in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def loads_lenient(text: str) -> Any:
    """`load_json`, forgiving code fences and trailing commas; JsonSlip with the position
    of the first real error otherwise."""
    try:
        return load_json(text)
    except JsonSlip as first:
        relaxed = strip_trailing_commas(strip_fences(text))
        if relaxed == text:
            raise
        try:
            return load_json(relaxed)
        except JsonSlip:
            raise first from None


def partial_json(text: str) -> tuple[Any, tuple[str | int, ...]]:
    """A JSON value still arriving, as far as it is complete (a string being written
    counts with what it has so far), and the key path of that string (empty: none is
    open). (None, ()) for text that is not the start of JSON."""
    data = text.strip().encode()
    try:
        whole = jiter.from_json(data, partial_mode="trailing-strings")
        closed = jiter.from_json(data, partial_mode="on")
    except ValueError:
        return None, ()
    path: list[str | int] = []
    value, done = whole, closed
    while isinstance(value, dict | list) and value:
        key: str | int = list(value)[-1] if isinstance(value, dict) else len(value) - 1
        path.append(key)
        if isinstance(value, dict):
            value, done = value[key], done.get(key) if isinstance(done, dict) else None
        else:
            assert isinstance(key, int)
            fits = isinstance(done, list) and len(done) > key
            value, done = value[key], done[key] if fits else None
    return whole, tuple(path) if isinstance(value, str) and done != value else ()
