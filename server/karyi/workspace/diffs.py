"""What an edit changed, in the forms its consumers need.

From an original text and a set of non-overlapping replacements this builds
character-precise `TextEdit`s (for LSP `workspace/applyEdit`), line `Hunk`s with
stable ids (`h1`, `h2`, … per file) that the editor can accept or reject one by one
(`apply_hunks`), and a unified diff for the model and the approval prompt.

Positions are LSP's (`positions.py`): 0-based line, UTF-16 character column.

Work is proportional to the size of the changed regions, not of the file: line numbers
come from one sweep over the sorted offsets, and context lines from local scans.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from karyi.workspace.positions import Position, Range, TextEdit, utf16_len

CONTEXT = 3
FINE_DIFF_LIMIT = 4_000_000
"""Above this product of old and new line counts a changed region is shown as one block."""


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

    def to_json(self) -> dict[str, Any]:
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


@dataclass(frozen=True)
class FileDiff:
    """Everything an edit of one file changed."""

    path: str
    edits: tuple[TextEdit, ...]
    hunks: tuple[Hunk, ...]
    added: int
    removed: int
    created: bool = False
    deleted: bool = False
    unified: str = field(default="", compare=False)

    @property
    def empty(self) -> bool:
        """True when nothing changed."""
        return not self.hunks and not self.created and not self.deleted

    def summary(self) -> str:
        """`+3 -1` style counts."""
        return f"+{self.added} -{self.removed}"

    def to_json(self) -> dict[str, Any]:
        """The form the LSP layer and the extension consume."""
        return {
            "path": self.path,
            "created": self.created,
            "deleted": self.deleted,
            "added": self.added,
            "removed": self.removed,
            "edits": [e.to_json() for e in self.edits],
            "hunks": [h.to_json() for h in self.hunks],
            "unified": self.unified,
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
class _Change:
    """Old lines [line, line+len(old)) at offsets [start, end) become `new`."""

    line: int
    start: int
    end: int
    old: list[str]
    new: list[str]


class _Locator:
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
        return self.found[off][0]

    def position(self, off: int) -> Position:
        line, start = self.found[off]
        return Position(line, utf16_len(self.text[start:off]))


def _region(text: str, a: int, b: int) -> tuple[int, int]:
    """Whole lines around [a, b): start of a's line to the end of b's last line."""
    rs = text.rfind("\n", 0, a) + 1
    last = b - 1 if b > a else a
    nl = text.find("\n", last) if last < len(text) else -1
    return rs, (nl + 1 if nl >= 0 else len(text))


def _groups(text: str, edits: Sequence[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Edits widened to whole lines, merged where their lines touch: (start, end, new)."""
    groups: list[list[Any]] = []  # [start, end, end of the last edit, new text up to it]
    for a, b, new in edits:
        rs, re_ = _region(text, a, b)
        if groups and rs <= groups[-1][1]:
            g = groups[-1]
            g[3] += text[g[2] : a] + new
            g[2] = b
            g[1] = max(g[1], re_)
        else:
            groups.append([rs, re_, b, text[rs:a] + new])
    return [(s, e, head + text[lb:e]) for s, e, lb, head in groups]


def _changes(text: str, groups: Sequence[tuple[int, int, str]]) -> list[_Change]:
    """Line changes inside each group (line numbers are filled in later)."""
    changes: list[_Change] = []
    for rs, re_, new in groups:
        old_lines = split_keep(text[rs:re_])
        new_lines = split_keep(new)
        if len(old_lines) * len(new_lines) > FINE_DIFF_LIMIT or not old_lines or not new_lines:
            ops: Sequence[tuple[str, int, int, int, int]] = [
                ("replace", 0, len(old_lines), 0, len(new_lines))
            ]
        else:
            sm = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
            ops = sm.get_opcodes()
        offsets = [rs]
        for ln in old_lines:
            offsets.append(offsets[-1] + len(ln))
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal" or (i1 == i2 and j1 == j2):
                continue
            changes.append(_Change(0, offsets[i1], offsets[i2], old_lines[i1:i2], new_lines[j1:j2]))
    return changes


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


class _Builder:
    """Turns changes into hunks and text edits, mapping back to the raw text."""

    def __init__(self, text: str, crlf: bool, loc: _Locator) -> None:
        self.text = text
        self.crlf = crlf
        self.loc = loc

    def raw(self, off: int) -> int:
        return off + self.loc.line(off) if self.crlf else off

    def out(self, s: str) -> str:
        return s.replace("\n", "\r\n") if self.crlf else s

    def hunks(self, changes: list[_Change]) -> list[Hunk]:
        batches: list[list[_Change]] = []
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

    def _hunk(self, hid: str, batch: list[_Change], delta: int) -> Hunk:
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
        return [
            TextEdit(Range(self.loc.position(a), self.loc.position(b)), self.out(new))
            for a, b, new in edits
        ]


def _trim(text: str, a: int, b: int, new: str) -> tuple[int, int, str]:
    """The same replacement without the characters it leaves as they are."""
    old_len = b - a
    p = 0
    limit = min(old_len, len(new))
    while p < limit and text[a + p] == new[p]:
        p += 1
    s = 0
    while s < limit - p and text[b - 1 - s] == new[len(new) - 1 - s]:
        s += 1
    return a + p, b - s, new[p : len(new) - s]


def build_diff(
    text: str,
    edits: Sequence[tuple[int, int, str]],
    *,
    path: str,
    crlf: bool = False,
    created: bool = False,
    deleted: bool = False,
) -> FileDiff:
    """The diff of applying sorted, non-overlapping `edits` (offsets into `text`).

    With `crlf`, `text` and the edits are the LF form of a CRLF file: ranges, offsets
    and new texts are given for the CRLF original.
    """
    trimmed = [t for t in (_trim(text, a, b, new) for a, b, new in edits) if t[0] != t[1] or t[2]]
    changes = _changes(text, _groups(text, trimmed))
    offsets = [o for a, b, _ in trimmed for o in (a, b)]
    loc = _Locator(text, offsets + [o for ch in changes for o in (ch.start, ch.end)])
    for ch in changes:
        ch.line = loc.line(ch.start)
    builder = _Builder(text, crlf, loc)
    hunks = tuple(builder.hunks(changes))
    edits_out = tuple(builder.text_edits(trimmed))
    added = sum(len(ch.new) for ch in changes)
    removed = sum(len(ch.old) for ch in changes)
    diff = FileDiff(path, edits_out, hunks, added, removed, created, deleted)
    return FileDiff(
        path, edits_out, hunks, added, removed, created, deleted, unified=render_unified(diff)
    )


def diff_texts(old: str | None, new: str | None, *, path: str) -> FileDiff:
    """The diff between two whole texts (None: the file does not exist on that side)."""
    before = old or ""
    after = new or ""
    crlf = _uniform_crlf(before) and (not after or _uniform_crlf(after))
    if crlf:
        before, after = before.replace("\r\n", "\n"), after.replace("\r\n", "\n")
    edits = [] if before == after else [(0, len(before), after)]
    return build_diff(
        before,
        edits,
        path=path,
        crlf=crlf,
        created=old is None and new is not None,
        deleted=new is None and old is not None,
    )


def _uniform_crlf(text: str) -> bool:
    n = text.count("\n")
    return n > 0 and text.count("\r\n") == n


def render_unified(diff: FileDiff) -> str:
    """The unified diff text (`--- a/p`, `+++ b/p`, hunks); empty when nothing changed."""
    if diff.empty:
        return ""
    old = "/dev/null" if diff.created else f"a/{diff.path}"
    new = "/dev/null" if diff.deleted else f"b/{diff.path}"
    lines = [f"--- {old}", f"+++ {new}"]
    for h in diff.hunks:
        lines.append(h.header)
        lines += h.lines
    return "\n".join(lines) + "\n"


def compact(diff: FileDiff, max_lines: int = 80) -> str:
    """The hunks alone, cut after `max_lines` lines with the rest counted."""
    lines: list[str] = []
    for h in diff.hunks:
        lines.append(h.header)
        lines += h.lines
    if len(lines) > max_lines:
        cut = len(lines) - max_lines
        lines = [*lines[:max_lines], f"... ({cut} more diff lines not shown)"]
    return "\n".join(lines)


def apply_hunks(original: str, hunks: Sequence[Hunk], accepted: Iterable[str]) -> str:
    """`original` with only the hunks whose ids are in `accepted` applied."""
    wanted = set(accepted)
    unknown = wanted - {h.id for h in hunks}
    if unknown:
        raise KeyError(f"unknown hunk id(s): {', '.join(sorted(unknown))}")
    out = original
    for h in sorted((h for h in hunks if h.id in wanted), key=lambda h: h.start, reverse=True):
        out = out[: h.start] + h.new_text + out[h.end :]
    return out
