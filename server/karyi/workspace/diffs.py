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
from typing import Any, TypedDict

from karyi.workspace.hunks import Builder, Change, Hunk, HunkJson, Locator, split_keep
from karyi.workspace.positions import TextEdit, TextEditJson

__all__ = [
    "FileDiff",
    "Hunk",
    "apply_hunks",
    "build_diff",
    "compact",
    "diff_texts",
    "render_unified",
    "split_keep",
]

FINE_DIFF_LIMIT = 4_000_000
"""Above this product of old and new line counts a changed region is shown as one block."""


class FileDiffJson(TypedDict):
    """A file's change as the LSP layer and the extension consume it."""

    path: str
    created: bool
    deleted: bool
    added: int
    removed: int
    edits: list[TextEditJson]
    hunks: list[HunkJson]
    unified: str


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

    def to_json(self) -> FileDiffJson:
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


def _changes(text: str, groups: Sequence[tuple[int, int, str]]) -> list[Change]:
    """Line changes inside each group (line numbers are filled in later)."""
    changes: list[Change] = []
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
            changes.append(Change(0, offsets[i1], offsets[i2], old_lines[i1:i2], new_lines[j1:j2]))
    return changes


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
    loc = Locator(text, offsets + [o for ch in changes for o in (ch.start, ch.end)])
    for ch in changes:
        ch.line = loc.line(ch.start)
    builder = Builder(text, crlf, loc)
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
    edits = [] if before == after else _whole_or_lines(before, after)
    return build_diff(
        before,
        edits,
        path=path,
        crlf=crlf,
        created=old is None and new is not None,
        deleted=new is None and old is not None,
    )


def _whole_or_lines(before: str, after: str) -> list[tuple[int, int, str]]:
    """The change as one edit, or, for a large file whose lines were changed in place
    (a rename), one edit per changed line: otherwise it would be shown as one block."""
    old, new = split_keep(before), split_keep(after)
    if len(old) != len(new) or len(old) * len(new) <= FINE_DIFF_LIMIT:
        return [(0, len(before), after)]
    edits, offset = [], 0
    for line, changed in zip(old, new, strict=True):
        if line != changed:
            edits.append((offset, offset + len(line), changed))
        offset += len(line)
    return edits


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
