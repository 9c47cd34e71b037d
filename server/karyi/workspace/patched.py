"""A text being edited, kept as its original plus replacements in the original's offsets.

The edit engine applies pair after pair; copying a 5 MB file for each one would cost
more than finding the pairs. `PatchedText` answers "where does this occur now?" and
"replace this span" without materialising the current text, and what it keeps (sorted
replacements of the original) is exactly what the diff builder needs.

Finding is the cost that remains. A find text spanning several lines is looked up
through an index of the original's lines (`LineIndex`), so such finds cost next to
nothing. The other finds of one edit are all looked for in the original in a single
Aho-Corasick pass (`FindIndex`) instead of one scan each.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable

from ahocorasick_rs import AhoCorasick, MatchKind

MAX_LINE_HITS = 64
"""A line occurring more often than this is no good for finding candidates."""
MAX_FIND_HITS = 50_000
"""A `FindIndex` pass gives up past this many occurrences in all (finds as short as `x`)."""
_SLICE = 1 << 18
"""Characters of the file searched at once."""


class LineIndex:
    """Where given lines occur as whole lines of a text."""

    def __init__(self, text: str, wanted: Iterable[str]) -> None:
        self.where: dict[str, list[int]] = {w: [] for w in wanted if w.strip()}
        if not self.where:
            return
        where = self.where
        pos = 0
        for line in text.split("\n"):
            hits = where.get(line)
            if hits is not None and len(hits) <= MAX_LINE_HITS:
                hits.append(pos)
            pos += len(line) + 1

    def best(self, find: str) -> tuple[str, int, list[int]] | None:
        """The rarest whole line inside `find`: (line, its offset in find, hits)."""
        best: tuple[str, int, list[int]] | None = None
        for line, offset in inner_lines(find):
            hits = self.where.get(line)
            usable = hits is not None and len(hits) <= MAX_LINE_HITS
            if usable and hits is not None and (best is None or len(hits) < len(best[2])):
                best = (line, offset, hits)
        return best


class FindIndex:
    """Where each of many find texts occurs in a text, from one pass over it.

    A separate `str.find` per find text costs a scan of the whole file each; an edit of
    a hundred one-line pairs on a large file spends nearly all its time there. Every
    occurrence is recorded, overlapping ones too; a find with more than `limit` is left out.
    """

    def __init__(self, where: dict[str, list[int]]) -> None:
        self.where = where

    @classmethod
    def build(cls, text: str, finds: Iterable[str], limit: int) -> FindIndex | None:
        """The index, or None when the finds occur too often for one pass to pay."""
        where: dict[str, list[int]] = {}
        for find in finds:
            if find:
                where.setdefault(find, [])
        if not where:
            return None
        patterns = list(where)
        automaton = AhoCorasick(patterns, matchkind=MatchKind.Standard)
        longest = max(len(p) for p in patterns)
        seen = 0
        # In slices, so a find that occurs everywhere costs a bounded list, not one
        # entry per hit of the whole file; a slice overlaps the next by a find's length.
        for start in range(0, len(text), _SLICE):
            piece = text[start : start + _SLICE + longest - 1]
            for index, begin, _end in automaton.find_matches_as_indexes(piece, overlapping=True):
                if begin >= _SLICE:
                    continue  # the next slice has it
                seen += 1
                if seen > MAX_FIND_HITS:
                    return None
                hits = where[patterns[index]]
                if len(hits) <= limit:
                    hits.append(start + begin)
        # A find with more than `limit` hits is left to a scan: some hits may lie in text
        # earlier pairs replace, and only a scan counts the limit among the valid ones.
        return cls({find: hits for find, hits in where.items() if len(hits) <= limit})


def inner_lines(find: str) -> list[tuple[str, int]]:
    """Lines of `find` that are whole lines wherever it matches: between two `\\n`."""
    out: list[tuple[str, int]] = []
    start = find.find("\n")
    while start >= 0:
        end = find.find("\n", start + 1)
        if end < 0:
            break
        out.append((find[start + 1 : end], start + 1))
        start = end
    return out


class PatchedText:
    """The original text plus sorted, non-touching replacements [a, b) -> new."""

    def __init__(
        self,
        base: str,
        index: LineIndex | None = None,
        width: int = 0,
        finds: FindIndex | None = None,
    ) -> None:
        self.base = base
        self.index = index
        self.finds = finds
        self.width = width  # the longest find expected: windows this wide are cached
        self.edits: list[tuple[int, int, str]] = []
        self._windows: dict[tuple[int, int, str, int], tuple[str, int]] = {}
        self._reindex()

    def _reindex(self) -> None:
        self.p: list[int] = []  # current start of each replacement's new text
        self.q: list[int] = []  # current end of it
        self.a: list[int] = []  # original start of each replacement
        self.after: list[int] = []  # length change up to and including it
        delta = 0
        for a, b, new in self.edits:
            self.p.append(a + delta)
            self.q.append(a + delta + len(new))
            self.a.append(a)
            delta += len(new) - (b - a)
            self.after.append(delta)
        self.length = len(self.base) + delta

    def before(self, i: int) -> int:
        """The length change of the text before replacement `i`."""
        return self.after[i - 1] if i > 0 else 0

    def to_original(self, offset: int) -> int:
        """Where a current offset lies in the original (a replacement's start if inside one)."""
        i = bisect_right(self.p, offset) - 1
        if i < 0:
            return offset
        if offset < self.q[i]:
            return self.edits[i][0]
        return offset - self.after[i]

    def slice(self, lo: int, hi: int) -> str:
        """The current text's [lo, hi)."""
        out: list[str] = []
        x = lo
        while x < hi:
            i = bisect_right(self.p, x) - 1
            if i >= 0 and x < self.q[i]:
                end = min(hi, self.q[i])
                out.append(self.edits[i][2][x - self.p[i] : end - self.p[i]])
            else:
                delta = self.after[i] if i >= 0 else 0
                end = min(hi, self.p[i + 1] if i + 1 < len(self.p) else self.length)
                out.append(self.base[x - delta : end - delta])
            x = end
        return "".join(out)

    def text(self) -> str:
        """The whole current text."""
        parts: list[str] = []
        pos = 0
        for a, b, new in self.edits:
            parts += (self.base[pos:a], new)
            pos = b
        parts.append(self.base[pos:])
        return "".join(parts)

    def find_all(self, find: str, limit: int = 1000) -> list[int]:
        """Current start offsets of `find` (overlapping ones too), at most `limit`."""
        found: set[int] = set()
        known = self.finds.where.get(find) if self.finds is not None else None
        hint = self.index.best(find) if self.index is not None and known is None else None
        if known is not None:
            self._indexed(find, 0, known, found)
        elif hint is not None:
            self._indexed(find, hint[1], hint[2], found)
        else:
            self._scan(find, found, limit)
        self._across(find, found)
        return sorted(found)[:limit]

    def _scan(self, find: str, found: set[int], limit: int) -> None:
        """Occurrences inside the unchanged stretches of the original."""
        gap = 0
        bounds = [(a, b) for a, b, _ in self.edits] + [(len(self.base), len(self.base))]
        for i, (a, b) in enumerate(bounds):
            delta = self.before(i)
            pos = self.base.find(find, gap, a)
            while pos >= 0 and len(found) < limit:
                found.add(pos + delta)
                pos = self.base.find(find, pos + 1, a)
            gap = b

    def _indexed(self, find: str, offset: int, hits: list[int], found: set[int]) -> None:
        """Like `_scan`, from the index's hits of one whole line of `find`."""
        n = len(find)
        for hit in hits:
            start = hit - offset
            if start < 0 or not self.base.startswith(find, start):
                continue
            # the last replacement starting before the occurrence ends must end before it
            i = bisect_right(self.a, start + n - 1) - 1
            if i >= 0 and self.edits[i][1] > start:
                continue
            found.add(start + (self.after[i] if i >= 0 else 0))

    def _across(self, find: str, found: set[int]) -> None:
        """Occurrences that touch a replacement's new text or span its ends.

        The text around every replacement (a window as wide as the longest find) is
        joined with NUL separators, so one C-level search covers them all; a window
        whose neighbourhood has no other replacement is cached between searches.
        """
        if not self.edits:
            return
        n = len(find)
        width = max(self.width, n)
        windows = [self._window(i, width) for i in range(len(self.edits))]
        joined = "\x00".join(text for text, _ in windows)
        starts: list[int] = []
        pos = 0
        for text, _ in windows:
            starts.append(pos)
            pos += len(text) + 1
        hit = joined.find(find) if "\x00" not in find else -1
        while hit >= 0:
            k = bisect_right(starts, hit) - 1
            s = self.p[k] + windows[k][1] + (hit - starts[k])
            p, q = self.p[k], self.q[k]
            if (s < q and s + n > p) if q > p else (s < p < s + n):
                found.add(s)
            hit = joined.find(find, hit + 1)
        if "\x00" in find:
            self._across_slow(find, found)

    def _window(self, i: int, width: int) -> tuple[str, int]:
        """The text within `width - 1` of replacement `i`, and its start relative to it."""
        a, b, new = self.edits[i]
        reach = width - 1
        alone = (i == 0 or self.edits[i - 1][1] <= a - reach) and (
            i + 1 == len(self.edits) or self.edits[i + 1][0] >= b + reach
        )
        if alone:
            key = (a, b, new, width)
            cached = self._windows.get(key)
            if cached is None:
                left = max(0, a - reach)
                cached = (self.base[left:a] + new + self.base[b : b + reach], left - a)
                self._windows[key] = cached
            return cached
        lo = max(0, self.p[i] - reach)
        return self.slice(lo, min(self.length, self.q[i] + reach)), lo - self.p[i]

    def _across_slow(self, find: str, found: set[int]) -> None:
        n = len(find)
        for i in range(len(self.edits)):
            p, q = self.p[i], self.q[i]
            lo, hi = max(0, p - n + 1), min(self.length, q + n - 1)
            window = self.slice(lo, hi)
            pos = window.find(find)
            while pos >= 0:
                s = lo + pos
                if (s < q and s + n > p) if q > p else (s < p < s + n):
                    found.add(s)
                pos = window.find(find, pos + 1)

    def replace(self, start: int, end: int, new: str) -> tuple[int, int]:
        """Replace the current [start, end); returns the replaced span in the original."""
        first = bisect_left(self.q, start)
        last = bisect_right(self.p, end) - 1
        if first > last:
            delta = self.before(first)
            a, b = start - delta, end - delta
            self.edits.insert(first, (a, b, new))
        else:
            reg_s, reg_e = min(start, self.p[first]), max(end, self.q[last])
            a = start - self.before(first) if start < self.p[first] else self.edits[first][0]
            b = end - self.after[last] if end > self.q[last] else self.edits[last][1]
            text = self.slice(reg_s, start) + new + self.slice(end, reg_e)
            self.edits[first : last + 1] = [(a, b, text)]
        self._reindex()
        return a, b
