"""The part of a file most like a find text that matched nowhere (docs/tools.md#edit).

Similarity only chooses the region an error shows, so the model can retry in one step;
it never chooses where an edit is written.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from karyi.workspace.matching import Lines
from karyi.workspace.reindent import find_lines

MAX_WINDOWS = 400
MAX_SCORED_CHARS = 20_000
RESCORED = 20
"""How many of the roughly ranked windows get an exact similarity score."""
SMALL_FILE_LINES = 2000
"""Files this short get every window scored when the find shares no word with them."""


@dataclass(frozen=True)
class Region:
    """The part of the file most like a find text that matched nowhere."""

    first_line: int  # 1-based
    last_line: int
    similarity: float
    text: str


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _rough(a: str, b: str) -> float:
    """An upper bound of `_similarity`, cheap enough to rank every candidate window."""
    return difflib.SequenceMatcher(None, a, b, autojunk=False).quick_ratio()


_WORD = re.compile(r"\w{3,}")


def candidate_starts(stripped: Sequence[str], flines: Sequence[str]) -> list[int]:
    """Window starts worth scoring: aligned on lines the find shares with the file.

    Exact (stripped) line anchors first; when there are none, the lines that share the
    most words with the find. Bounded to MAX_WINDOWS windows.
    """
    k = len(flines)
    fstripped = [f.strip() for f in flines]
    where: dict[str, list[int]] = {}
    for j, f in enumerate(fstripped):
        if len(f) >= 4:
            where.setdefault(f, []).append(j)
    starts: dict[int, None] = {}
    for i, ln in enumerate(stripped):
        for j in where.get(ln, ()):
            starts[max(0, min(i - j, len(stripped) - k))] = None
        if len(starts) >= MAX_WINDOWS:
            break
    if starts:
        return list(starts)
    fwords = [set(_WORD.findall(f)) for f in fstripped]
    allwords = set().union(*fwords)
    if not allwords:
        if len(stripped) <= SMALL_FILE_LINES:  # nothing to anchor on: try every window
            return list(range(max(1, len(stripped) - k + 1)))
        return []
    scored: list[tuple[int, int, int]] = []
    for i, ln in enumerate(stripped):
        words = set(_WORD.findall(ln))
        common = len(words & allwords)
        if common:
            j = max(range(k), key=lambda j: len(words & fwords[j]))
            scored.append((common, i, j))
    scored.sort(key=lambda t: (-t[0], t[1]))
    for _, i, j in scored[: MAX_WINDOWS // 4]:
        starts[max(0, min(i - j, len(stripped) - k))] = None
    return list(starts)


def _scores(lines: Lines, stripped: Sequence[str], find: str) -> list[tuple[float, int, int]]:
    """(similarity, start, line count) of the most promising windows, best first."""
    flines, _newline = find_lines(find)
    k = min(len(flines), len(lines))
    target = "\n".join(f.strip() for f in flines)[:MAX_SCORED_CHARS]
    windows = {
        s: "\n".join(stripped[s : s + k])[:MAX_SCORED_CHARS]
        for s in candidate_starts(stripped, flines)
    }
    rough = sorted(windows, key=lambda s: (-_rough(windows[s], target), s))[:RESCORED]
    out = [(_similarity(windows[s], target), s, k) for s in rough]
    out.sort(key=lambda t: (-t[0], t[1]))
    return out


def closest(lines: Lines, stripped: Sequence[str], find: str, max_lines: int = 40) -> Region | None:
    """The window most like `find`, for the error that lets the model retry in one step."""
    scores = _scores(lines, stripped, find)
    if not scores:
        return None
    sim, s, k = scores[0]
    shown = lines.lines[s : s + min(k, max_lines)]
    text = "\n".join(shown)
    if k > max_lines:
        text += f"\n... ({k - max_lines} more lines)"
    return Region(s + 1, s + k, sim, text)
