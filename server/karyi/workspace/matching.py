"""Where a find text that is not in the file verbatim was meant to go (docs/tools.md#edit).

Models copy code with small slips: wrong line endings, whitespace at line ends, a
first line copied without its indentation, a block shifted left or right or indented
with tabs for spaces, text escaped once too often, different spacing between tokens.
Each layer here forgives one kind of slip, tried in the documented order; the first
layer that finds anything decides, and the caller refuses when it found more than one
place. Nothing here guesses between candidates.

A fuzzy match writes only what the model changed (`reindent.merge`). A find line that
differs from the file beyond whitespace is never written over: similarity only chooses
the region an error shows (`closest`).

All offsets are into the text given (the LF form of the file); finds and replacements
arrive LF-normalised.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from karyi.workspace.reindent import (
    Reindent,
    Unsafe,
    find_lines,
    first_line_map,
    indent_of,
    level_map,
    merged,
    same,
    shift_map,
    shift_of,
    uneven_map,
)

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
    "elided": "matched around the elision in the find text",
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


@dataclass(frozen=True)
class Found:
    """The places one layer found, and how sure it is."""

    strategy: str
    matches: tuple[Match, ...]
    similarity: float = 1.0


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
        flines, newline = find_lines(find)
        if not any(f.strip() for f in flines):
            return None
        k = len(flines)
        starts = list(_blocks(self.rstripped, [f.rstrip() for f in flines]))
        if starts:
            return self._found(
                "trailing_whitespace", starts, k, newline, find, replacement, lambda s: same
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
                lambda s: first_line_map(flines[0], self.lines.lines[s]),
            )
        maps: dict[int, Reindent] = {}
        for s in starts:
            pairs = _pairs(self.lines, s, flines)
            shift = shift_of(pairs)
            found_map = shift_map(shift) if shift else level_map(pairs)
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
        return all(indent_of(t) == indent_of(f) for t, f in pairs[1:])

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
    rlines, _ = find_lines(region)
    flines, _ = find_lines(find)
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
    if all(indent_of(t) == indent_of(f) for t, f in pairs):
        return merged(rlines, find, replacement, same)
    return merged(rlines, find, replacement, uneven_map(pairs))


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
