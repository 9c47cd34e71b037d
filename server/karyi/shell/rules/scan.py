"""A quote-aware scan for substitutions that bashlex leaves as text.

bashlex parses `$( )`, backticks and `<( )` in words, but keeps `${...}` as a string,
gives up on `$(( ))` and never looks into here-document bodies. Bash runs commands in
all of them (`${X:-$(cmd)}`, `${a[$(cmd)]}`, `$(( $(cmd) ))`), so the rules find them
here and check each as a command of its own. When a span cannot be closed the scan says
so: the caller must then ask, never assume there was nothing to see.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Sub:
    """One substitution found in a text: its kind, body (inside the brackets), start."""

    kind: str  # "command", "arith" or "param"
    body: str
    start: int
    end: int  # one past the closing bracket


class Unbalanced(ValueError):
    """A substitution whose end the scan could not find."""


def _skip_single(text: str, i: int) -> int:
    end = text.find("'", i + 1)
    if end < 0:
        raise Unbalanced("an unterminated single quote")
    return end + 1


def _close(text: str, i: int, opening: str, closing: str) -> int:
    """The index of the bracket closing the one at `i`, skipping quotes and escapes."""
    depth = 0
    in_double = False
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and not in_double:
            i = _skip_single(text, i)
            continue
        if c == '"':
            in_double = not in_double
        elif c == opening and not in_double:
            depth += 1
        elif c == closing and not in_double:
            depth -= 1
            if depth == 0:
                return i
        elif c == "`" and not in_double:
            end = text.find("`", i + 1)
            if end < 0:
                raise Unbalanced("an unterminated backtick")
            i = end
        i += 1
    raise Unbalanced(f"an unclosed `{opening}`")


def _dollar(text: str, i: int) -> Sub | None:
    """The substitution starting with `$` at `i`, if any."""
    if text.startswith("$((", i):
        end = _close(text, i + 1, "(", ")")
        if text[end - 1] == ")" and end - 1 > i + 2:
            return Sub("arith", text[i + 3 : end - 1], i, end + 1)
        return Sub("command", text[i + 2 : end], i, end + 1)
    if text.startswith("$(", i):
        end = _close(text, i + 1, "(", ")")
        return Sub("command", text[i + 2 : end], i, end + 1)
    if text.startswith("$[", i):
        end = _close(text, i + 1, "[", "]")
        return Sub("arith", text[i + 2 : end], i, end + 1)
    if text.startswith("${", i):
        end = _close(text, i + 1, "{", "}")
        return Sub("param", text[i + 2 : end], i, end + 1)
    return None


def substitutions(text: str, heredoc: bool = False) -> list[Sub]:
    """The outermost substitutions of `text`; quotes protect nothing in a here-document.

    Raises `Unbalanced` when one cannot be closed.
    """
    found: list[Sub] = []
    in_double = False
    i = 0
    while i < len(text):
        c = text[i]
        quotes = not heredoc
        if c == "\\":
            i += 2
            continue
        if quotes and c == "'" and not in_double:
            i = _skip_single(text, i)
            continue
        if quotes and text.startswith("$'", i) and not in_double:
            i = _skip_single(text, i + 1)
            continue
        if quotes and c == '"':
            in_double = not in_double
        elif c == "$" and (sub := _dollar(text, i)) is not None:
            found.append(sub)
            i = sub.end
            continue
        elif c == "`":
            end = text.find("`", i + 1)
            if end < 0:
                raise Unbalanced("an unterminated backtick")
            found.append(Sub("command", text[i + 1 : end].replace("\\`", "`"), i, end + 1))
            i = end + 1
            continue
        elif quotes and not in_double and c in "<>" and text.startswith("(", i + 1):
            end = _close(text, i + 1, "(", ")")
            found.append(Sub("command", text[i + 2 : end], i, end + 1))
            i = end + 1
            continue
        i += 1
    return found


def mask_arithmetic(line: str) -> tuple[str, dict[int, str]]:
    """`line` with each `$(( ))` / `$[ ]` replaced by a `${___}` of the same length.

    bashlex cannot parse arithmetic; the placeholder keeps every position of the line
    so commands keep their text, and the map (start → body) lets the walk check the
    arithmetic where the placeholder is found.
    """
    chars = list(line)
    bodies: dict[int, str] = {}

    def walk(text: str, offset: int) -> None:
        try:
            subs = substitutions(text)
        except Unbalanced:
            return
        for sub in subs:
            width = sub.end - sub.start
            if sub.kind == "arith" and width >= 4:
                bodies[offset + sub.start] = sub.body
                chars[offset + sub.start : offset + sub.end] = "${" + "_" * (width - 3) + "}"
            elif sub.kind != "arith":
                walk(sub.body, offset + sub.start + (1 if text[sub.start] in "`" else 2))

    walk(line, 0)
    return "".join(chars), bodies


_SAFE_HEAD = re.compile(r"#?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(?:\[(?:[0-9]+|@|\*)\])?")
_SAFE_SLICE = re.compile(r":[\s0-9-]*(?::[\s0-9-]*)?$")
_NAMES = re.compile(r"[A-Za-z_$]")


def parameter_doubts(body: str) -> list[str]:
    """Why `${body}` may run code beyond the substitutions it contains, if it may.

    An array subscript, a substring offset and an indirect name are evaluated as
    arithmetic, and arithmetic evaluates the value of every variable it names as an
    expression, so `a[$(cmd)]` stored in one runs `cmd`.
    """
    if body.startswith("!"):
        return [f"an indirect expansion `${{{body}}}`"]
    head = _SAFE_HEAD.match(body)
    if head is None:
        return [f"an expansion the rules do not model: `${{{body}}}`"]
    rest = body[head.end() :]
    if rest.startswith("["):
        return [f"an array subscript (evaluated as arithmetic): `${{{body}}}`"]
    slices = rest.startswith(":") and rest[1:2] not in ("-", "=", "+", "?")
    if slices and not _SAFE_SLICE.match(rest):
        return [f"a substring offset (evaluated as arithmetic): `${{{body}}}`"]
    return []


def arithmetic_doubts(body: str) -> list[str]:
    """Why `$((body))` may run code: it names variables, whose values are evaluated."""
    if _NAMES.search(body):
        return [f"arithmetic that reads variables (their values run as code): `$(({body}))`"]
    return []


def _double(text: str, i: int, out: list[str]) -> int:
    """Copy a double-quoted string's content from `i` (after the quote); the index after."""
    while i < len(text) and text[i] != '"':
        if text[i] == "\\" and text[i + 1 : i + 2] in ("$", "`", '"', "\\", "\n"):
            out.append(text[i + 1] if text[i + 1] != "\n" else "")
            i += 2
            continue
        out.append(text[i])
        i += 1
    if i >= len(text):
        raise Unbalanced("an unterminated double quote")
    return i + 1


def unquote(text: str) -> str:
    """Bash's quote removal on a word without expansions."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            out.append(text[i + 1 : i + 2] if text[i + 1 : i + 2] != "\n" else "")
            i += 2
        elif c == "'":
            end = _skip_single(text, i)
            out.append(text[i + 1 : end - 1])
            i = end
        elif c == '"':
            i = _double(text, i + 1, out)
        else:
            out.append(c)
            i += 1
    return "".join(out)
