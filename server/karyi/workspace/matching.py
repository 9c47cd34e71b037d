"""Where a find text that is not in the file verbatim was meant to go (docs/tools.md#edit).

Models copy code with small slips: wrong line endings, whitespace at line ends, a
first line copied without its indentation, a block shifted left or right, text escaped
once too often, different spacing between tokens, a character or two off. Each layer
here forgives one kind of slip, tried in the documented order; the first layer that finds
anything decides, and the caller refuses when it found more than one place. Nothing
here guesses between candidates.

All offsets are into the text given (the LF form of the file); finds and replacements
arrive LF-normalised.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

SIMILARITY_THRESHOLD = 0.92
"""A window must be this similar to the find text for the similarity layer to use it."""
SIMILAR_RIVAL = 0.85
"""A second, separate window at least this similar makes the similarity match ambiguous."""
SIMILAR_MIN_LINES = 3
"""Shorter finds never match by similarity: two short lines differ by a character too easily."""
MAX_WINDOWS = 400
MAX_SCORED_CHARS = 20_000
RESCORED = 20
"""How many of the roughly ranked windows get an exact similarity score."""
SMALL_FILE_LINES = 2000
"""Files this short get every window scored when the find shares no word with them."""

STRATEGY_NOTES = {
    "exact": "exact match",
    "line_endings": "matched after normalising line endings",
    "trailing_whitespace": "matched ignoring whitespace at line ends",
    "trimmed_lines": "matched ignoring leading/trailing whitespace of lines "
    "(the first line's indentation was kept)",
    "indentation": "matched with the whole block indented differently; "
    "the replacement was re-indented to match",
    "unescaped": 'matched after undoing over-escaped text (\\n, \\", \\\\); '
    "the replacement was unescaped the same way",
    "tokens": "matched ignoring whitespace between tokens",
    "similar": "matched a region that is similar but not identical",
}
"""What each strategy means, told to the model so it learns to copy text exactly."""


@dataclass(frozen=True)
class Match:
    """One place the find text matched: [start, end) and what replaces it there."""

    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class Found:
    """The places one layer found, and how sure it is."""

    strategy: str
    matches: tuple[Match, ...]
    similarity: float = 1.0


@dataclass(frozen=True)
class Region:
    """The part of the file most like a find text that matched nowhere."""

    first_line: int  # 1-based
    last_line: int
    similarity: float
    text: str


class Lines:
    """A text split into lines (without `\\n`) with each line's start offset."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.starts: list[int] = []
        pos = 0
        for ln in self.lines:
            self.starts.append(pos)
            pos += len(ln) + 1

    def __len__(self) -> int:
        return len(self.lines)

    def span(self, first: int, count: int, newline: bool) -> tuple[int, int]:
        """Offsets of lines [first, first+count), with the last `\\n` when `newline`."""
        last = first + count - 1
        end = self.starts[last] + len(self.lines[last])
        if newline and end < len(self.text):
            end += 1
        return self.starts[first], end


def _find_lines(find: str) -> tuple[list[str], bool]:
    """A find text's lines, and whether it ended with a newline."""
    newline = find.endswith("\n")
    body = find[:-1] if newline else find
    return body.split("\n"), newline


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _blocks(text_keys: Sequence[str], find_keys: Sequence[str]) -> Iterator[int]:
    """Start indices where `find_keys` occurs as a run of `text_keys`."""
    k = len(find_keys)
    if k == 0 or k > len(text_keys):
        return
    first = find_keys[0]
    for i in range(len(text_keys) - k + 1):
        if text_keys[i] == first and all(text_keys[i + j] == find_keys[j] for j in range(1, k)):
            yield i


def _pairs(lines: Lines, start: int, flines: Sequence[str]) -> list[tuple[str, str]]:
    """(file line, find line) for the non-blank lines of a block."""
    return [
        (lines.lines[start + j], f)
        for j, f in enumerate(flines)
        if f.strip() and lines.lines[start + j].strip()
    ]


def _shift(pairs: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """("add", p) or ("remove", p) when every file line is its find line indented by p."""
    if not pairs:
        return None
    t0, f0 = _indent(pairs[0][0]), _indent(pairs[0][1])
    if t0.endswith(f0) and len(t0) > len(f0):
        p = t0[: len(t0) - len(f0)]
        if all(_indent(t) == p + _indent(f) for t, f in pairs):
            return ("add", p)
    if f0.endswith(t0) and len(f0) > len(t0):
        p = f0[: len(f0) - len(t0)]
        if all(_indent(f) == p + _indent(t) for t, f in pairs):
            return ("remove", p)
    return None


def _reindent(replacement: str, shift: tuple[str, str]) -> str:
    how, p = shift
    out = []
    for ln in replacement.split("\n"):
        if not ln.strip():
            out.append(ln)
        elif how == "add":
            out.append(p + ln)
        else:
            out.append(ln[len(p) :] if ln.startswith(p) else ln.lstrip(" \t"))
    return "\n".join(out)


def _fix_first_line(replacement: str, find_first: str, file_first: str) -> str:
    """Give the replacement's first line the file's indentation when the find lacked it."""
    f_ws, t_ws = _indent(find_first), _indent(file_first)
    head, sep, rest = replacement.partition("\n")
    if f_ws != t_ws and _indent(head) == f_ws:
        head = t_ws + head[len(f_ws) :]
    return head + sep + rest


class LineLayers:
    """The line-based layers over one text: trailing whitespace, trimmed, indentation."""

    def __init__(self, lines: Lines) -> None:
        self.lines = lines
        self._rstripped: list[str] | None = None
        self._stripped: list[str] | None = None

    @property
    def rstripped(self) -> list[str]:
        if self._rstripped is None:
            self._rstripped = [ln.rstrip() for ln in self.lines.lines]
        return self._rstripped

    @property
    def stripped(self) -> list[str]:
        if self._stripped is None:
            self._stripped = [ln.strip() for ln in self.lines.lines]
        return self._stripped

    def search(self, find: str, replacement: str) -> Found | None:
        """The first line layer that matches `find`, with adjusted replacements."""
        flines, newline = _find_lines(find)
        if not any(f.strip() for f in flines):
            return None
        k = len(flines)
        starts = list(_blocks(self.rstripped, [f.rstrip() for f in flines]))
        if starts:
            return self._found("trailing_whitespace", starts, k, newline, lambda s: replacement)
        starts = list(_blocks(self.stripped, [f.strip() for f in flines]))
        trimmed = [s for s in starts if self._first_only(s, flines)]
        if trimmed:
            return self._found(
                "trimmed_lines",
                trimmed,
                k,
                newline,
                lambda s: _fix_first_line(replacement, flines[0], self.lines.lines[s]),
            )
        shifted = [(s, sh) for s in starts if (sh := _shift(_pairs(self.lines, s, flines)))]
        if shifted:
            shifts = dict(shifted)
            return self._found(
                "indentation",
                [s for s, _ in shifted],
                k,
                newline,
                lambda s: _reindent(replacement, shifts[s]),
            )
        return None

    def _first_only(self, start: int, flines: Sequence[str]) -> bool:
        """True when only the first line's indentation differs (copied from its text)."""
        pairs = _pairs(self.lines, start, flines)
        return all(_indent(t) == _indent(f) for t, f in pairs[1:])

    def _found(
        self,
        strategy: str,
        starts: Sequence[int],
        k: int,
        newline: bool,
        make: Callable[[int], str],
    ) -> Found:
        matches = []
        for s in starts:
            a, b = self.lines.span(s, k, newline)
            matches.append(Match(a, b, make(s)))
        return Found(strategy, tuple(matches))


_ESCAPE = re.compile(r"\\(n|t|r|\"|'|`|\$|\\)")
_UNESCAPED = {"n": "\n", "t": "\t", "r": "\r"}


def unescape(text: str) -> str:
    """One level of backslash escaping undone: `\\n` → newline, `\\"` → `"`, `\\\\` → `\\`."""
    return _ESCAPE.sub(lambda m: _UNESCAPED.get(m.group(1), m.group(1)), text)


def exact(text: str, find: str, limit: int = 1000) -> list[int]:
    """Start offsets of `find` in `text`, overlapping ones included, at most `limit`."""
    out: list[int] = []
    pos = text.find(find)
    while pos >= 0 and len(out) < limit:
        out.append(pos)
        pos = text.find(find, pos + 1)
    return out


def by_unescaping(text: str, layers: LineLayers, find: str, replacement: str) -> Found | None:
    """Exact or line-layer matches of the find text with one level of escaping undone."""
    plain = unescape(find)
    if plain == find:
        return None
    repl = unescape(replacement)
    starts = exact(text, plain)
    if starts:
        return Found("unescaped", tuple(Match(s, s + len(plain), repl) for s in starts))
    found = layers.search(plain, repl)
    return Found("unescaped", found.matches) if found else None


_TOKEN = re.compile(r"\w+|[^\w\s]")


def by_tokens(text: str, find: str, replacement: str) -> Found | None:
    """Matches of the find's tokens with any whitespace between them."""
    tokens = _TOKEN.findall(find)
    if len(tokens) < 2:
        return None
    parts = [re.escape(tokens[0])]
    for prev, tok in itertools.pairwise(tokens):
        words = prev[-1].isalnum() or prev[-1] == "_"
        parts.append(r"\s+" if words and (tok[0].isalnum() or tok[0] == "_") else r"\s*")
        parts.append(re.escape(tok))
    pattern = re.compile("".join(parts))
    lead = find[: len(find) - len(find.lstrip())]
    trail = find[len(find.rstrip()) :]
    matches = []
    for m in pattern.finditer(text):
        a, b = m.span()
        if lead:  # take the line's own leading whitespace, the replacement brings its own
            while a > 0 and text[a - 1] in " \t":
                a -= 1
        if trail and "\n" not in trail:
            while b < len(text) and text[b] in " \t":
                b += 1
        elif trail and b < len(text) and text[b] == "\n":
            b += 1
        matches.append(Match(a, b, replacement))
        if len(matches) >= 1000:
            break
    return Found("tokens", tuple(matches)) if matches else None


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
    flines, _newline = _find_lines(find)
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


def by_similarity(
    lines: Lines, stripped: Sequence[str], find: str, replacement: str
) -> Found | None:
    """The one window of the find's size that is nearly identical to it."""
    flines, newline = _find_lines(find)
    if sum(1 for f in flines if f.strip()) < SIMILAR_MIN_LINES:
        return None
    scores = _scores(lines, stripped, find)
    if not scores or scores[0][0] < SIMILARITY_THRESHOLD:
        return None
    best, start, k = scores[0]
    rivals = [s for sim, s, _ in scores[1:] if sim >= SIMILAR_RIVAL and abs(s - start) >= k]
    chosen = [start, *rivals]
    matches = []
    for s in chosen:
        a, b = lines.span(s, k, newline)
        shift = _shift(_pairs(lines, s, flines))
        matches.append(Match(a, b, _reindent(replacement, shift) if shift else replacement))
    return Found("similar", tuple(matches), similarity=best)


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
