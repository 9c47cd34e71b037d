"""Where a find text that is not in the file verbatim was meant to go (docs/tools.md#edit).

Models copy code with small slips: wrong line endings, whitespace at line ends, a
first line copied without its indentation, a block shifted left or right or indented
with tabs for spaces, text escaped once too often, different spacing between tokens.
Each layer here forgives one kind of slip, tried in the documented order; the first
layer that finds anything decides, and the caller refuses when it found more than one
place. Nothing here guesses between candidates.

A fuzzy match writes only what the model changed (`merge`): the line diff between the
model's find and its replace is applied to the file's own lines, so a line the model
kept keeps the file's text byte for byte, and a changed or added line takes the model's
text re-indented as the file is indented. A find line that differs from the file beyond
whitespace is never written over: similarity only chooses the region an error shows.

All offsets are into the text given (the LF form of the file); finds and replacements
arrive LF-normalised.
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

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
    "indentation": "matched with the whole block indented differently (deeper, shallower, "
    "or with tabs for spaces); new lines were indented as the file is",
    "unescaped": 'matched after undoing over-escaped text (\\n, \\", \\\\); '
    "the replacement was unescaped the same way",
    "tokens": "matched ignoring whitespace between tokens",
}
"""What each strategy means, told to the model so it learns to copy text exactly."""


@dataclass(frozen=True)
class Match:
    """One place the find text matched: [start, end) and what replaces it there.

    `replacement` is None when it cannot be written safely there; `problem` says why.
    """

    start: int
    end: int
    replacement: str | None
    problem: str = ""


class Unsafe(Exception):
    """The model's replace cannot be applied to the matched lines without writing what
    the model did not mean (an indentation Karyi cannot map, lines broken differently)."""


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


def _fix_first_line(replacement: str, find_first: str, file_first: str) -> str:
    """Give the replacement's first line the file's indentation when the find lacked it."""
    f_ws, t_ws = _indent(find_first), _indent(file_first)
    head, sep, rest = replacement.partition("\n")
    if f_ws != t_ws and _indent(head) == f_ws:
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


def _same(line: str, _index: int) -> str:
    return line


def _with_newline(lines: Sequence[str], newline: bool) -> str:
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
    file_unit = _unit([_indent(t) for t, _ in pairs])
    find_unit = _unit([_indent(f) for _, f in pairs])
    offsets = set()
    for t, f in pairs:
        lt, lf = _levels(_indent(t), file_unit), _levels(_indent(f), find_unit)
        if lt is None or lf is None:
            return None
        offsets.add(lt - lf)
    if len(offsets) != 1 or (file_unit is None and find_unit is not None):
        return None
    (offset,) = offsets

    def reindent(line: str, _index: int) -> str:
        ind = _indent(line)
        level = _levels(ind, find_unit)
        if level is None or level + offset < 0 or (level + offset and file_unit is None):
            raise Unsafe(
                f"the new line {line.strip()!r} is indented with {ind!r}, which does not "
                "map onto the file's indentation"
            )
        return (file_unit or "") * (level + offset) + line[len(ind) :]

    return reindent


def _shift_map(shift: tuple[str, str]) -> Reindent:
    how, p = shift

    def reindent(line: str, _index: int) -> str:
        if how == "add":
            return p + line
        return line[len(p) :] if line.startswith(p) else line.lstrip(" \t")

    return reindent


def _first_line_map(find_first: str, file_first: str) -> Reindent:
    """For a find whose first line was copied without its indentation."""

    def reindent(line: str, index: int) -> str:
        return _fix_first_line(line, find_first, file_first) if index == 0 else line

    return reindent


def merged(file_lines: Sequence[str], find: str, replacement: str, reindent: Reindent) -> str:
    """`merge` as the text that replaces the matched lines."""
    flines, _ = _find_lines(find)
    rlines, rnewline = _find_lines(replacement)
    if replacement == "":
        rlines = []
    return _with_newline(merge(file_lines, flines, rlines, reindent), rnewline)


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
        """The first line layer that matches `find`, each match's replacement merged
        into the file's own lines."""
        flines, newline = _find_lines(find)
        if not any(f.strip() for f in flines):
            return None
        k = len(flines)
        starts = list(_blocks(self.rstripped, [f.rstrip() for f in flines]))
        if starts:
            return self._found(
                "trailing_whitespace", starts, k, newline, find, replacement, lambda s: _same
            )
        starts = list(_blocks(self.stripped, [f.strip() for f in flines]))
        trimmed = [s for s in starts if self._first_only(s, flines)]
        if trimmed:
            return self._found(
                "trimmed_lines",
                trimmed,
                k,
                newline,
                find,
                replacement,
                lambda s: _first_line_map(flines[0], self.lines.lines[s]),
            )
        maps: dict[int, Reindent] = {}
        for s in starts:
            pairs = _pairs(self.lines, s, flines)
            shift = _shift(pairs)
            found_map = _shift_map(shift) if shift else level_map(pairs)
            if found_map is not None:
                maps[s] = found_map
        if maps:
            return self._found(
                "indentation", list(maps), k, newline, find, replacement, maps.__getitem__
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
        find: str,
        replacement: str,
        reindent_at: Callable[[int], Reindent],
    ) -> Found:
        matches = []
        for s in starts:
            a, b = self.lines.span(s, k, newline)
            try:
                text = merged(self.lines.lines[s : s + k], find, replacement, reindent_at(s))
                matches.append(Match(a, b, text))
            except Unsafe as exc:
                matches.append(Match(a, b, None, str(exc)))
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


def _tokens_merged(region: str, find: str, replacement: str) -> str:
    """The replacement for a region that matched the find's tokens: line by line, each
    region line with the same tokens as its find line; else Unsafe."""
    rlines, _ = _find_lines(region)
    flines, _ = _find_lines(find)
    if len(rlines) != len(flines):
        raise Unsafe(
            f"the find text has {len(flines)} lines where the file has {len(rlines)}: "
            "copy its line breaks exactly"
        )
    for have, wrote in zip(rlines, flines, strict=True):
        if _TOKEN.findall(have) != _TOKEN.findall(wrote):
            raise Unsafe(
                f"the find line {wrote.strip()!r} is split differently in the file "
                f"({have.strip()!r}): copy its line breaks exactly"
            )
    pairs = [(t, f) for t, f in zip(rlines, flines, strict=True) if t.strip() and f.strip()]
    if all(_indent(t) == _indent(f) for t, f in pairs):
        return merged(rlines, find, replacement, _same)
    return merged(rlines, find, replacement, uneven_map(pairs))


def uneven_map(pairs: Sequence[tuple[str, str]]) -> Reindent:
    """How a new line is indented when the find's indentation is not the file's: like the
    file line whose find line it is indented like; else by whole levels (`level_map`);
    else as written, but only at an indentation the file's matched lines already use."""
    seen: dict[str, str | None] = {}
    for t, f in pairs:
        fi, ti = _indent(f), _indent(t)
        seen[fi] = ti if seen.get(fi, ti) == ti else None  # None: contradicting evidence
    levels = level_map(pairs)
    existing = {_indent(t) for t, _ in pairs}

    def reindent(line: str, index: int) -> str:
        ind = _indent(line)
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
        elif trail:  # to the end of the line: the line's own trailing whitespace too
            end = b
            while end < len(text) and text[end] in " \t":
                end += 1
            if end == len(text) or text[end] == "\n":
                b = min(end + 1, len(text))
        try:
            matches.append(Match(a, b, _tokens_merged(text[a:b], find, replacement)))
        except Unsafe as exc:
            matches.append(Match(a, b, None, str(exc)))
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
