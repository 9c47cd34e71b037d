"""Hunks: the blocks of changed lines, with context, that the editor accepts or rejects
one by one (docs/tools.md#edit).

`Builder` turns line changes (`Change`, found by `diffs.build_diff`) into hunks with
stable ids (`h1`, `h2`, … per file) and character-precise text edits, mapping the LF form
of a CRLF file back to its raw offsets. Positions are LSP's (`positions.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypedDict

from karyi.workspace.positions import Position, Range, RangeJson, TextEdit, utf16_len

CONTEXT = 3


class HunkJson(TypedDict):
    """A hunk's JSON form (`karyi/fileDiffs`, edit previews): `range` of the original
    and `newText` replace it; the header numbers are the unified diff's."""

    id: str
    header: str
    oldStart: int
    oldLines: int
    newStart: int
    newLines: int
    range: RangeJson
    newText: str
    lines: list[str]


@dataclass(frozen=True)
class Hunk:
    """One block of changed lines with its context, acceptable or rejectable alone.

    `range` covers the changed lines of the original (context excluded) and
    `new_text` replaces them; `start`/`end` are the same span as string offsets.
    The header numbers are the unified diff's (1-based, context included).
    """

    id: str
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: tuple[str, ...]
    range: Range
    new_text: str
    start: int
    end: int

    @property
    def header(self) -> str:
        """`@@ -a,b +c,d @@`."""
        old = _span(self.old_start, self.old_lines)
        return f"@@ -{old} +{_span(self.new_start, self.new_lines)} @@"

    @property
    def edit(self) -> TextEdit:
        """The hunk as one text edit on the original."""
        return TextEdit(self.range, self.new_text)

    def to_json(self) -> HunkJson:
        """The form the LSP layer sends (`karyi/fileDiffs`)."""
        return {
            "id": self.id,
            "header": self.header,
            "oldStart": self.old_start,
            "oldLines": self.old_lines,
            "newStart": self.new_start,
            "newLines": self.new_lines,
            "range": self.range.to_json(),
            "newText": self.new_text,
            "lines": list(self.lines),
        }


def _span(start: int, count: int) -> str:
    # difflib's convention: an empty range names the line before it
    if count == 1:
        return str(start)
    return f"{start - 1 if count == 0 else start},{count}"


def split_keep(text: str) -> list[str]:
    """Lines with their `\\n` kept (the last one may lack it)."""
    if not text:
        return []
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


@dataclass
class Change:
    """Old lines [line, line+len(old)) at offsets [start, end) become `new`."""

    line: int
    start: int
    end: int
    old: list[str]
    new: list[str]


class Locator:
    """Line numbers and line starts for sorted offsets, in one sweep."""

    def __init__(self, text: str, offsets: Iterable[int]) -> None:
        self.text = text
        self.found: dict[int, tuple[int, int]] = {}
        line, pos = 0, 0
        for off in sorted(set(offsets)):
            line += text.count("\n", pos, off)
            pos = off
            self.found[off] = (line, text.rfind("\n", 0, off) + 1)

    def line(self, off: int) -> int:
        """The 0-based line of an offset given at construction."""
        return self.found[off][0]

    def position(self, off: int) -> Position:
        """The LSP position of an offset given at construction."""
        line, start = self.found[off]
        return Position(line, utf16_len(self.text[start:off]))


def _context_before(text: str, start: int, n: int) -> list[str]:
    lines: list[str] = []
    pos = start
    while len(lines) < n and pos > 0:
        prev = text.rfind("\n", 0, pos - 1) + 1
        lines.append(text[prev:pos])
        pos = prev
    return lines[::-1]


def _context_after(text: str, end: int, n: int) -> list[str]:
    lines: list[str] = []
    pos = end
    while len(lines) < n and pos < len(text):
        nl = text.find("\n", pos)
        nxt = len(text) if nl < 0 else nl + 1
        lines.append(text[pos:nxt])
        pos = nxt
    return lines


def _body(prefix: str, lines: Iterable[str]) -> list[str]:
    out: list[str] = []
    for ln in lines:
        bare = ln[:-1] if ln.endswith("\n") else ln
        out.append(prefix + (bare[:-1] if bare.endswith("\r") else bare))
        if not ln.endswith("\n"):
            out.append("\\ No newline at end of file")
    return out


class Builder:
    """Turns changes into hunks and text edits, mapping back to the raw text."""

    def __init__(self, text: str, crlf: bool, loc: Locator) -> None:
        self.text = text
        self.crlf = crlf
        self.loc = loc

    def raw(self, off: int) -> int:
        """An offset of the LF text as an offset of the raw (CRLF) text."""
        return off + self.loc.line(off) if self.crlf else off

    def out(self, s: str) -> str:
        """Text in the file's own line endings."""
        return s.replace("\n", "\r\n") if self.crlf else s

    def hunks(self, changes: list[Change]) -> list[Hunk]:
        """The changes grouped into hunks (close changes share one)."""
        batches: list[list[Change]] = []
        for ch in changes:
            if (
                batches
                and ch.line - (batches[-1][-1].line + len(batches[-1][-1].old)) <= 2 * CONTEXT
            ):
                batches[-1].append(ch)
            else:
                batches.append([ch])
        hunks: list[Hunk] = []
        delta = 0
        for n, batch in enumerate(batches, 1):
            hunk = self._hunk(f"h{n}", batch, delta)
            delta += hunk.new_lines - hunk.old_lines
            hunks.append(hunk)
        return hunks

    def _hunk(self, hid: str, batch: list[Change], delta: int) -> Hunk:
        before = _context_before(self.text, batch[0].start, CONTEXT)
        after = _context_after(self.text, batch[-1].end, CONTEXT)
        body = _body(" ", before)
        new_parts: list[str] = []
        old_n = new_n = len(before)
        for i, ch in enumerate(batch):
            if i:
                between = split_keep(self.text[batch[i - 1].end : ch.start])
                body += _body(" ", between)
                new_parts += between
                old_n += len(between)
                new_n += len(between)
            body += _body("-", ch.old) + _body("+", ch.new)
            new_parts += ch.new
            old_n += len(ch.old)
            new_n += len(ch.new)
        body += _body(" ", after)
        old_n += len(after)
        new_n += len(after)
        old_start = batch[0].line - len(before) + 1
        start, end = batch[0].start, batch[-1].end
        return Hunk(
            id=hid,
            old_start=old_start,
            old_lines=old_n,
            new_start=old_start + delta,
            new_lines=new_n,
            lines=tuple(body),
            range=Range(self.loc.position(start), self.loc.position(end)),
            new_text=self.out("".join(new_parts)),
            start=self.raw(start),
            end=self.raw(end),
        )

    def text_edits(self, edits: Sequence[tuple[int, int, str]]) -> list[TextEdit]:
        """The replacements as LSP text edits on the raw text."""
        return [
            TextEdit(Range(self.loc.position(a), self.loc.position(b)), self.out(new))
            for a, b, new in edits
        ]
