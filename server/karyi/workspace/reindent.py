"""How the model's lines are written into the file's own (docs/tools.md#edit).

A fuzzy match writes only what the model changed (`merge`): the line diff between the
model's find and its replace is applied to the file's own lines, so a line the model
kept keeps the file's text byte for byte, and a changed or added line takes the model's
text re-indented as the file is indented (`Reindent`: the block's shift, whole levels of
the file's unit, or the indentation of the file line whose find line it is indented like).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Sequence


class Unsafe(Exception):
    """The model's replace cannot be applied to the matched lines without writing what
    the model did not mean (an indentation Karyi cannot map, lines broken differently)."""


def find_lines(find: str) -> tuple[list[str], bool]:
    """A find text's lines, and whether it ended with a newline."""
    newline = find.endswith("\n")
    body = find[:-1] if newline else find
    return body.split("\n"), newline


def indent_of(line: str) -> str:
    """The line's leading spaces and tabs."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def shift_of(pairs: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """("add", p) or ("remove", p) when every file line is its find line indented by p."""
    if not pairs:
        return None
    t0, f0 = indent_of(pairs[0][0]), indent_of(pairs[0][1])
    if t0.endswith(f0) and len(t0) > len(f0):
        p = t0[: len(t0) - len(f0)]
        if all(indent_of(t) == p + indent_of(f) for t, f in pairs):
            return ("add", p)
    if f0.endswith(t0) and len(f0) > len(t0):
        p = f0[: len(f0) - len(t0)]
        if all(indent_of(f) == p + indent_of(t) for t, f in pairs):
            return ("remove", p)
    return None


def fix_first_line(replacement: str, find_first: str, file_first: str) -> str:
    """Give the replacement's first line the file's indentation when the find lacked it."""
    f_ws, t_ws = indent_of(find_first), indent_of(file_first)
    head, sep, rest = replacement.partition("\n")
    if f_ws != t_ws and indent_of(head) == f_ws:
        head = t_ws + head[len(f_ws) :]
    return head + sep + rest


Reindent = Callable[[str, int], str]
"""A changed or added line (and its index in the replacement) as the file indents it."""


def merge(
    file_lines: Sequence[str],
    find_lines: Sequence[str],
    repl_lines: Sequence[str],
    reindent: Reindent,
) -> list[str]:
    """The replace applied as a diff to the file's own lines (aligned one to one with the
    find's): kept lines are the file's, changed and added lines the model's, reindented."""
    out: list[str] = []
    diff = difflib.SequenceMatcher(None, list(find_lines), list(repl_lines), autojunk=False)
    for op, i1, i2, j1, j2 in diff.get_opcodes():
        if op == "equal":
            out.extend(file_lines[i1:i2])
        elif op in ("replace", "insert"):
            out.extend(
                reindent(repl_lines[j], j) if repl_lines[j].strip() else "" for j in range(j1, j2)
            )
    return out


def same(line: str, _index: int) -> str:
    """A line kept as the model wrote it."""
    return line


def with_newline(lines: Sequence[str], newline: bool) -> str:
    """Lines joined, with a final newline when `newline`."""
    return "\n".join(lines) + ("\n" if newline else "")


def _unit(indents: Sequence[str]) -> str | None:
    """The indentation unit of these indents: a tab, or the spaces of one level."""
    used = [i for i in indents if i]
    if not used:
        return None
    if all(set(i) == {"\t"} for i in used):
        return "\t"
    if all(set(i) == {" "} for i in used):
        return " " * math.gcd(*(len(i) for i in used))
    return None


def _levels(indent: str, unit: str | None) -> int | None:
    if not indent:
        return 0
    if unit is None or len(indent) % len(unit) or indent != unit * (len(indent) // len(unit)):
        return None
    return len(indent) // len(unit)


def level_map(pairs: Sequence[tuple[str, str]]) -> Reindent | None:
    """How the model's indentation maps onto the file's, learnt from aligned (file line,
    find line) pairs: whole levels of the model's unit (a tab, or N spaces) become levels
    of the file's, shifted by a constant. None when no such map explains every pair."""
    file_unit = _unit([indent_of(t) for t, _ in pairs])
    find_unit = _unit([indent_of(f) for _, f in pairs])
    offsets = set()
    for t, f in pairs:
        lt, lf = _levels(indent_of(t), file_unit), _levels(indent_of(f), find_unit)
        if lt is None or lf is None:
            return None
        offsets.add(lt - lf)
    if len(offsets) != 1 or (file_unit is None and find_unit is not None):
        return None
    (offset,) = offsets

    def reindent(line: str, _index: int) -> str:
        ind = indent_of(line)
        level = _levels(ind, find_unit)
        if level is None or level + offset < 0 or (level + offset and file_unit is None):
            raise Unsafe(
                f"the new line {line.strip()!r} is indented with {ind!r}, which does not "
                "map onto the file's indentation"
            )
        return (file_unit or "") * (level + offset) + line[len(ind) :]

    return reindent


def shift_map(shift: tuple[str, str]) -> Reindent:
    """The reindent of a block shifted by a constant prefix (added or removed)."""
    how, p = shift

    def reindent(line: str, _index: int) -> str:
        if how == "add":
            return p + line
        return line[len(p) :] if line.startswith(p) else line.lstrip(" \t")

    return reindent


def first_line_map(find_first: str, file_first: str) -> Reindent:
    """For a find whose first line was copied without its indentation."""

    def reindent(line: str, index: int) -> str:
        return fix_first_line(line, find_first, file_first) if index == 0 else line

    return reindent


def merged(file_lines: Sequence[str], find: str, replacement: str, reindent: Reindent) -> str:
    """`merge` as the text that replaces the matched lines."""
    flines, _ = find_lines(find)
    rlines, rnewline = find_lines(replacement)
    if replacement == "":
        rlines = []
    return with_newline(merge(file_lines, flines, rlines, reindent), rnewline)


def uneven_map(pairs: Sequence[tuple[str, str]]) -> Reindent:
    """How a new line is indented when the find's indentation is not the file's: like the
    file line whose find line it is indented like; else by whole levels (`level_map`);
    else as written, but only at an indentation the file's matched lines already use."""
    seen: dict[str, str | None] = {}
    for t, f in pairs:
        fi, ti = indent_of(f), indent_of(t)
        seen[fi] = ti if seen.get(fi, ti) == ti else None  # None: contradicting evidence
    levels = level_map(pairs)
    existing = {indent_of(t) for t, _ in pairs}

    def reindent(line: str, index: int) -> str:
        ind = indent_of(line)
        if seen.get(ind) is not None:
            return f"{seen[ind]}{line[len(ind) :]}"
        if levels is not None:
            return levels(line, index)
        if ind in existing:
            return line
        raise Unsafe(
            f"the find text is indented unevenly, and the new line {line.strip()!r} is "
            "indented unlike any line of the file there"
        )

    return reindent
