"""A find text with its middle left out (docs/tools.md#elided-edits).

`def f():\\n    ...\\n    return x` finds the file's lines from `def f():` to the next
`return x`, provided each run of lines around an elision (an anchor) is placed in exactly
one way, in order (`anchors.place`), with the whitespace forgiveness of any find. The
elision stands for whatever lies between its anchors. In the replacement, an elision
aligned with one of the find's (the line diff of find and replace, as for any fuzzy
match) keeps those lines byte for byte; a find elision with no counterpart has its lines
replaced. Lines the find and the replace share keep the file's text.

Refused, file untouched: an anchor that is nowhere, out of order or fits twice; a find
that starts or ends with an elision (nothing bounds it); an elision in the replacement
that stands for none in the find; a span holding a line that itself looks like an
elision (unless it is that very line, where both readings agree).

The result is a few replacements around the kept spans, so a kept span is never copied.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from karyi.workspace import anchors
from karyi.workspace.anchors import AFTER, Block, Haystack, Spot, Unplaced
from karyi.workspace.closest import closest
from karyi.workspace.edit_report import EditError, describe_region
from karyi.workspace.elision import comment_forms, elided_lines, is_elision, looks_elided
from karyi.workspace.patched import PatchedText
from karyi.workspace.reindent import (
    Reindent,
    Unsafe,
    find_lines,
    first_line_map,
    indent_of,
    level_map,
    same,
    shift_map,
    shift_of,
)

ELISION = "\x00elision"
"""The token every elision line becomes, so elisions of any form align with each other."""


@dataclass(frozen=True)
class ElidedEdit:
    """Replacements (current offsets, ascending) and the spans the elisions stood for."""

    pieces: tuple[tuple[int, int, str], ...]
    kept: tuple[tuple[int, int], ...]
    replaced: tuple[tuple[int, int], ...]
    layer: str


def has_elision(find: str, path: str) -> bool:
    """True when the find text has a line that is an elision in this file's language."""
    return ("..." in find or "…" in find) and bool(elided_lines(find.split("\n"), path))


def stray_marker(find: str, replace: str, path: str) -> str | None:
    """A comment elision (in any language's form) in the replacement of a find that has no
    elision: written as is, it would put the marker into the file. None when there is none;
    a bare `...` may be code (a stub), and a line the find has is the file's own."""
    if ("..." not in replace and "…" not in replace) or has_elision(find, path):
        return None
    written = {ln.strip() for ln in find.split("\n")}
    lines = replace.split("\n")
    for i in looks_elided(lines):
        s = lines[i].strip()
        if s not in ("...", "…") and s not in written:
            return s
    return None


def tokens(lines: Sequence[str], path: str, literal: AbstractSet[int] = frozenset()) -> list[str]:
    """The lines with each elision as `ELISION` (except those at `literal`), runs of them as
    one, and the blank lines next to an elision dropped (its span has the file's own)."""
    forms = comment_forms(path)
    marked = [
        ELISION if i not in literal and is_elision(ln, forms) else ln for i, ln in enumerate(lines)
    ]
    out: list[str] = []
    for i, ln in enumerate(marked):
        if ln == ELISION and out and out[-1] == ELISION:
            continue
        if not ln.strip() and _next_to_elision(marked, i):
            continue
        out.append(ln)
    return out


def _next_to_elision(marked: Sequence[str], i: int) -> bool:
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(marked) and not marked[j].strip():
            j += step
        if 0 <= j < len(marked) and marked[j] == ELISION:
            return True
    return False


def elided_edit(doc: PatchedText, n: int, find: str, replace: str, path: str) -> ElidedEdit:
    """The pair's edit around its elisions; raises EditError (nothing applied) when unsure."""
    flines, newline = find_lines(find)
    ftok = tokens(flines, path)
    ends = [t for t in ftok if t.strip()]
    if not ends or ELISION in (ends[0], ends[-1]):
        raise EditError(
            "elision",
            f"pair {n}: the find text starts or ends with an elision, so nothing marks where "
            "the lines it stands for begin or end; start and end it with lines copied from "
            f"{path}",
            pair=n,
        )
    segments = _segments(ftok)
    hay = Haystack(doc)
    found = _found(hay, segments)
    try:
        spots = anchors.place(found, [AFTER] * (len(segments) - 1))
    except Unplaced as exc:
        raise _unplaced(exc, n, path, segments, hay) from None
    gaps = [Spot(a.end, b.start) for a, b in itertools.pairwise(spots)]
    _check_gaps(hay, gaps, {ln.strip() for ln in flines}, n, path)
    file_lines = [
        hay.doc.slice(s.start, s.end).split("\n")[: len(seg)]
        for s, seg in zip(spots, segments, strict=True)
    ]
    layer = found[0].layer
    rlines, rnewline = find_lines(replace)
    rtok = tokens(rlines if replace else [], path)
    try:
        out = _merge(ftok, segments, file_lines, rtok, _reindent(segments, file_lines), n)
    except Unsafe as exc:
        raise EditError("unsafe", f"pair {n}: {exc}; nothing was written", pair=n) from None
    end = spots[-1].end if newline else _line_end(spots[-1], hay)
    return _pieces(out, spots[0].start, end, gaps, rnewline, layer)


def _found(hay: Haystack, segments: Sequence[Sequence[str]]) -> list[anchors.Found]:
    """Every anchor's spots at one layer: the most forgiving any of them needs (an anchor
    found exactly must not hide its places that differ in indentation like the others)."""
    first = [hay.find(Block(tuple(seg)), anchors.LAYERS) for seg in segments]
    if any(not f.spots for f in first):
        return first
    layer = max((f.layer for f in first), key=anchors.LAYERS.index)
    return [hay.find(Block(tuple(seg)), (layer,)) for seg in segments]


def _segments(ftok: Sequence[str]) -> list[list[str]]:
    segs: list[list[str]] = [[]]
    for t in ftok:
        if t == ELISION:
            segs.append([])
        else:
            segs[-1].append(t)
    return segs


def _line_end(spot: Spot, hay: Haystack) -> int:
    """The end of a block's last line, without its newline."""
    if spot.end > spot.start and hay.doc.slice(spot.end - 1, spot.end) == "\n":
        return spot.end - 1
    return spot.end


def _check_gaps(hay: Haystack, gaps: Sequence[Spot], written: set[str], n: int, path: str) -> None:
    """Refuse a span holding an elision-looking line, unless every non-blank line of it is
    one the find text itself has (then the literal and the elided reading agree)."""
    forms = comment_forms(path)
    for k, gap in enumerate(gaps, 1):
        text = hay.doc.slice(gap.start, gap.end)
        if "..." not in text and "…" not in text:
            continue
        lines = text.rstrip("\n").split("\n")
        looks = [ln for ln in lines if is_elision(ln, forms)]
        if looks and not all(ln.strip() in written for ln in lines if ln.strip()):
            first = hay.line_of(gap.start)
            raise EditError(
                "elision",
                f"pair {n}: elision {k} of the find text stands for lines {first}-"
                f"{first + len(lines) - 1} of {path}, which hold {looks[0].strip()!r}: a line "
                "that looks like an elision itself, so it is unclear what was left out; "
                "write those lines out in full",
                pair=n,
                lines=[first],
            )


def _reindent(segments: Sequence[Sequence[str]], file_lines: Sequence[Sequence[str]]) -> Reindent:
    pairs = [
        (t, f)
        for seg, got in zip(segments, file_lines, strict=True)
        for f, t in zip(seg, got, strict=True)
        if f.strip() and t.strip()
    ]
    if all(indent_of(t) == indent_of(f) for t, f in pairs):
        return same
    if all(indent_of(t) == indent_of(f) for t, f in pairs[1:]):
        return first_line_map(pairs[0][1], pairs[0][0])
    shift = shift_of(pairs)
    found = shift_map(shift) if shift else level_map(pairs)
    if found is None:
        raise Unsafe(
            "the lines around the elision are indented unlike the file's in more than one "
            "way; copy them with the file's indentation"
        )
    return found


Piece = str | int
"""A line of the result, or the index of a span the file keeps."""


def _merge(
    ftok: Sequence[str],
    segments: Sequence[Sequence[str]],
    file_lines: Sequence[Sequence[str]],
    rtok: Sequence[str],
    reindent: Reindent,
    n: int,
) -> list[Piece]:
    """The replace applied as a diff to the file's lines, elisions to the spans they keep."""
    chunks: list[list[Piece]] = []
    gap = 0
    for seg, got in zip(segments, file_lines, strict=True):
        chunks.extend([line] for line in got[: len(seg)])
        if gap < len(segments) - 1:
            chunks.append([gap])
            gap += 1
    out: list[Piece] = []
    matcher = difflib.SequenceMatcher(None, list(ftok), list(rtok), autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.extend(p for c in chunks[i1:i2] for p in c)
            continue
        for j in range(j1, j2):
            if rtok[j] == ELISION:
                raise EditError(
                    "elision",
                    f"pair {n}: the replacement has an elision that stands for no elision of "
                    "the find text (nothing says which lines it keeps); repeat the find's "
                    "lines around it, or write the lines out",
                    pair=n,
                )
            out.append(reindent(rtok[j], j) if rtok[j].strip() else "")
    return out


def _pieces(
    out: Sequence[Piece], start: int, end: int, gaps: Sequence[Spot], newline: bool, layer: str
) -> ElidedEdit:
    pieces: list[tuple[int, int, str]] = []
    kept: list[int] = [p for p in out if isinstance(p, int)]
    lines: list[str] = []
    pos = start
    for p in out:
        if isinstance(p, str):
            lines.append(p)
            continue
        pieces.append((pos, gaps[p].start, "".join(ln + "\n" for ln in lines)))
        lines, pos = [], gaps[p].end
    pieces.append((pos, end, "\n".join(lines) + ("\n" if newline and lines else "")))
    replaced = [i for i in range(len(gaps)) if i not in kept]
    return ElidedEdit(
        tuple(pieces),
        tuple((gaps[i].start, gaps[i].end) for i in kept),
        tuple((gaps[i].start, gaps[i].end) for i in replaced),
        layer,
    )


def _unplaced(
    exc: Unplaced, n: int, path: str, segments: Sequence[Sequence[str]], hay: Haystack
) -> EditError:
    seg = segments[exc.block]
    which = f"the find's lines {'before' if exc.block == 0 else 'after'} elision " + str(
        max(1, exc.block)
    )
    first = repr(seg[0].strip())
    if exc.why == "missing":
        text = "\n".join(seg)
        region = closest(hay.lines, [ln.strip() for ln in hay.lines.lines], text)
        near = f" {describe_region(region)}\n" if region else " "
        return EditError(
            "no_match",
            f"pair {n}: {which} ({first}) were not found in {path}.{near}"
            "Copy the lines around each elision exactly from the file.",
            pair=n,
            region=region,
        )
    lines = [hay.line_of(s.start) for s in exc.spots]
    if exc.why == "ambiguous":
        return EditError(
            "ambiguous",
            f"pair {n}: {which} ({first}) fit more than one place in {path} (lines "
            f"{', '.join(map(str, lines))}); include more lines around the elision so each "
            "part matches exactly one place",
            pair=n,
            lines=lines,
        )
    return EditError(
        "no_match",
        f"pair {n}: {which} ({first}) are in {path} (line {', '.join(map(str, lines))}) but "
        "not after the lines before them; the parts of an elided find must appear in the "
        "file's order",
        pair=n,
        lines=lines,
    )
