"""The edit engine (docs/tools.md#edit): ordered find/replace pairs applied to one file's text.

Pure functions: text in, new text and its diff out; nothing here touches the disk.
Each pair is looked for in the text as the earlier pairs left it: exactly first, then
through the fallback layers of `matching`. A pair that matches more than once (or more
or fewer times than `expected`) is refused with the candidates' line numbers; a pair
that matches nowhere is refused with the closest region; a replacement that is already
there is reported as "no change". One refusal refuses the whole file: all pairs apply
or none. A CRLF file is edited in its LF form and written back with CRLF.

The text being edited is kept as the original plus a sorted list of replacements in
the original's coordinates, so an exact pair costs no copy of it, and the finds are
located in the original by indexes built once per edit (`patched.LineIndex`,
`patched.FindIndex`); the diff (`diffs.build_diff`) is built from the same replacements.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

from karyi.workspace import matching
from karyi.workspace.closest import closest
from karyi.workspace.diffs import build_diff
from karyi.workspace.edit_report import (
    EditError,
    EditOutcome,
    Pair,
    PairReport,
    describe_region,
    miss_message,
)
from karyi.workspace.elided_pairs import elided_edit, has_elision, stray_marker
from karyi.workspace.elided_report import elided_note, new_file_note
from karyi.workspace.matching import STRATEGY_NOTES, Found, LineLayers, Lines, Match
from karyi.workspace.patched import FindIndex, LineIndex, PatchedText, inner_lines

FIND_LIMIT = 1000

__all__ = [
    "EditError",
    "EditOutcome",
    "Pair",
    "PairReport",
    "apply_edits",
    "describe_region",
]
"""The engine's names: the reports and errors live in `edit_report`, imported from here."""


def _uniform_crlf(text: str) -> bool:
    n = text.count("\n")
    return n > 0 and text.count("\r\n") == n


@dataclass
class _Job:
    """One file's edit in progress."""

    doc: PatchedText
    path: str
    crlf: bool
    lf_only: bool
    spans: list[tuple[int, int]]

    def normalise(self, text: str) -> str:
        return text.replace("\r\n", "\n") if self.crlf or self.lf_only else text

    def line_of(self, text: str, offset: int) -> int:
        return text.count("\n", 0, offset) + 1


def apply_edits(original: str | None, pairs: Sequence[Pair], *, path: str = "file") -> EditOutcome:
    """Apply `pairs` in order to `original` (None: the file does not exist yet).

    Raises EditError when any pair cannot be applied.
    """
    if original is None and (not pairs or pairs[0].find != ""):
        raise EditError(
            "missing_file",
            f"{path} does not exist; to create it, use an empty find text with the "
            "whole content as the replacement",
            pair=1,
        )
    raw = original or ""
    crlf = _uniform_crlf(raw)
    work = raw.replace("\r\n", "\n") if crlf else raw
    job = _Job(
        PatchedText(work, _line_index(work, pairs, crlf), finds=_find_index(work, pairs, crlf)),
        path,
        crlf,
        not crlf and "\r\n" not in work,
        [],
    )
    reports = [_apply_pair(job, n, pair) for n, pair in enumerate(pairs, 1)]
    final = job.doc.text()
    text = final.replace("\n", "\r\n") if crlf else final
    diff = build_diff(work, job.doc.edits, path=path, crlf=crlf, created=original is None)
    return EditOutcome(original, text, tuple(_with_lines(work, reports, job.spans)), diff)


def _line_index(work: str, pairs: Sequence[Pair], crlf: bool) -> LineIndex | None:
    """An index of the original's lines that occur inside multi-line finds."""
    wanted = {
        line
        for p in pairs
        for line, _ in inner_lines(p.find.replace("\r\n", "\n") if crlf else p.find)
    }
    return LineIndex(work, wanted) if wanted else None


FIND_INDEX_MIN = 3
"""With this many finds that the line index cannot place, one pass for all beats a scan each."""


def _find_index(work: str, pairs: Sequence[Pair], crlf: bool) -> FindIndex | None:
    """One pass over the original for every exact find text the line index cannot place."""
    finds = [
        text
        for p in pairs
        if p.find and not inner_lines(p.find.replace("\r\n", "\n") if crlf else p.find)
        for text, _ in _exact_candidates(p.find, crlf)
    ]
    return FindIndex.build(work, finds, FIND_LIMIT) if len(finds) >= FIND_INDEX_MIN else None


def _with_lines(
    work: str, reports: list[PairReport], spans: list[tuple[int, int]]
) -> list[PairReport]:
    """Fill in line numbers (of the original text) in one sweep over the spans."""
    offsets = sorted({o for a, b in spans for o in (a, max(a, b - 1))})
    lines: dict[int, int] = {}
    line, pos = 1, 0
    for off in offsets:
        line += work.count("\n", pos, off)
        pos = off
        lines[off] = line
    out = []
    for r, (a, b) in zip(reports, spans, strict=True):
        first, last = lines[a], lines[max(a, b - 1)]
        out.append(replace(r, first_line=first, last_line=last))
    return out


def _apply_pair(job: _Job, n: int, pair: Pair) -> PairReport:
    doc = job.doc
    if pair.find == "":
        if doc.length:
            raise EditError(
                "empty_find",
                f"pair {n}: the find text is empty, but {job.path} is not empty; an empty "
                "find only creates a new file (or fills an empty one)",
                pair=n,
            )
        job.spans.append(doc.replace(0, 0, job.normalise(pair.replace)))
        return PairReport(n, "create", 1, bool(pair.replace), detail=new_file_note(pair.replace))
    expected = pair.expected or 1
    if (marker := stray_marker(pair.find, pair.replace, job.path)) is not None:
        raise EditError(
            "elision",
            f"pair {n}: the replacement has {marker!r}, an elision, but the find text has "
            "none, so nothing says which lines it stands for and it would be written into "
            f"{job.path} as is; put the same elision in the find text between lines copied "
            "from the file, or write the lines out",
            pair=n,
        )
    found = _exact(job, pair)
    if found is None and has_elision(pair.find, job.path):
        return _elided(job, n, pair)
    if found is None:
        found = _fallback(job, n, pair)
        if found is None:
            return _already_applied(job, n, pair)
    return _replace(job, n, found, expected)


def _elided(job: _Job, n: int, pair: Pair) -> PairReport:
    """A find with elisions; when they cannot be placed, the find read literally (a file
    that has such lines, copied with a slip) before the refusal."""
    find, repl = pair.find.replace("\r\n", "\n"), job.normalise(pair.replace)
    try:
        edit = elided_edit(job.doc, n, find, repl, job.path)
    except EditError as exc:
        try:
            found = _fallback(job, n, pair)
        except EditError:
            raise exc from None
        if found is None:
            raise exc from None
        return _replace(job, n, found, pair.expected or 1)
    if (pair.expected or 1) != 1:
        raise EditError(
            "count",
            f"pair {n}: a find text with an elision replaces one place; it cannot be "
            f"expected {pair.expected} times",
            pair=n,
        )
    detail = elided_note(job.doc, edit)
    changed = False
    spans = []
    for a, b, new in reversed(edit.pieces):
        if job.doc.slice(a, b) == new:
            spans.append(_base_span(job.doc, Match(a, b, new)))
            continue
        spans.append(job.doc.replace(a, b, new))
        changed = True
    job.spans.append((min(a for a, _ in spans), max(b for _, b in spans)))
    return PairReport(n, "elided", 1, changed, detail=detail)


def _exact_candidates(find: str, crlf: bool) -> list[tuple[str, str]]:
    """The texts an exact match looks for, in order, each with its strategy."""
    if crlf:
        converted = find.replace("\r\n", "\n")
        mismatch = "\n" in find and find.count("\r\n") != find.count("\n")
        return [(converted, "line_endings" if mismatch else "exact")]
    candidates = [(find, "exact")]
    if "\r\n" in find:
        candidates.append((find.replace("\r\n", "\n"), "line_endings"))
    return candidates


def _exact(job: _Job, pair: Pair) -> Found | None:
    repl = job.normalise(pair.replace)
    for text, strategy in _exact_candidates(pair.find, job.crlf):
        starts = job.doc.find_all(text)
        if starts:
            if repl[:1] in (" ", "\t") and text[:1] not in (" ", "\t", "\n"):
                return _from_line_start(job, text, repl, starts, strategy)
            return Found(strategy, tuple(Match(s, s + len(text), repl) for s in starts))
    return None


def _from_line_start(
    job: _Job, find: str, repl: str, starts: Sequence[int], strategy: str
) -> Found:
    """Exact matches of a find whose first line was copied without its indentation while
    the replacement kept one: a match right after a line's indentation covers that
    indentation too, so the replacement's own is not added to the file's."""
    text = job.doc.text()
    matches = []
    trimmed = False
    for s in starts:
        line_start = text.rfind("\n", 0, s) + 1
        if line_start < s and not text[line_start:s].strip(" \t"):
            matches.append(Match(line_start, s + len(find), repl))
            trimmed = True
        else:
            matches.append(Match(s, s + len(find), repl))
    return Found("trimmed_lines" if trimmed else strategy, tuple(matches))


def _fallback(job: _Job, n: int, pair: Pair) -> Found | None:
    text = job.doc.text()
    find = pair.find.replace("\r\n", "\n")
    repl = job.normalise(pair.replace)
    lines = Lines(text)
    layers = LineLayers(lines)
    found = (
        layers.search(find, repl)
        or matching.by_unescaping(text, layers, find, repl)
        or matching.by_tokens(text, find, repl)
    )
    if found is not None:
        return found
    already = job.normalise(pair.replace)
    if already.strip() and len(matching.exact(text, already, 2)) == 1:
        return None
    region = closest(lines, layers.stripped, find)
    raise EditError("no_match", miss_message(n, job.path, region, find), pair=n, region=region)


def _already_applied(job: _Job, n: int, pair: Pair) -> PairReport:
    repl = job.normalise(pair.replace)
    start = job.doc.text().find(repl)
    job.spans.append(_base_span(job.doc, Match(start, start + len(repl), repl)))
    return PairReport(n, "already_applied", 1, False)


def _line_list(job: _Job, starts: Sequence[int]) -> list[int]:
    text = job.doc.text()
    return [job.line_of(text, s) for s in starts]


def _replace(job: _Job, n: int, found: Found, expected: int) -> PairReport:
    doc = job.doc
    matches = sorted(found.matches, key=lambda m: m.start)
    via = "" if found.strategy == "exact" else f" ({STRATEGY_NOTES[found.strategy]})"
    if len(matches) != expected:
        lines = _line_list(job, [m.start for m in matches])
        shown = ", ".join(map(str, lines[:20])) + (", ..." if len(lines) > 20 else "")
        count = f"{len(matches)}+" if len(matches) >= FIND_LIMIT else str(len(matches))
        if expected == 1:
            msg = (
                f"pair {n}: the find text matches {count} places in {job.path} "
                f"(lines {shown}){via}; include more surrounding lines so it matches "
                "exactly one"
            )
            raise EditError("ambiguous", msg, pair=n, lines=lines, strategy=found.strategy)
        msg = (
            f"pair {n}: expected {expected} occurrences of the find text in {job.path} but "
            f"found {count} (lines {shown}){via}"
        )
        raise EditError("count", msg, pair=n, lines=lines, strategy=found.strategy)
    for prev, cur in itertools.pairwise(matches):
        if cur.start < prev.end:
            lines = _line_list(job, [prev.start, cur.start])
            raise EditError(
                "overlap",
                f"pair {n}: the {expected} occurrences of the find text in {job.path} overlap "
                f"(lines {lines[0]} and {lines[1]}); make the find text longer",
                pair=n,
                lines=lines,
            )
    unsafe = next((m for m in matches if m.replacement is None), None)
    if unsafe is not None:
        line = _line_list(job, [unsafe.start])[0]
        raise EditError(
            "unsafe",
            f"pair {n}: the find text matches from line {line} of {job.path}{via}, but "
            f"{unsafe.problem}; nothing was written",
            pair=n,
            lines=[line],
            strategy=found.strategy,
        )
    changed = False
    spans: list[tuple[int, int]] = []
    for m in reversed(matches):
        assert m.replacement is not None
        if doc.slice(m.start, m.end) == m.replacement:
            spans.append(_base_span(doc, m))
            continue
        spans.append(doc.replace(m.start, m.end, m.replacement))
        changed = True
    job.spans.append((min(a for a, _ in spans), max(b for _, b in spans)))
    return PairReport(n, found.strategy, len(matches), changed, similarity=found.similarity)


def _base_span(doc: PatchedText, m: Match) -> tuple[int, int]:
    """Where an unchanged match lies in the original (a replacement's start if inside one)."""
    a = doc.to_original(m.start)
    return a, max(a, doc.to_original(m.end))
