"""Placing runs of lines (anchors) in a text, in order, each in exactly one way.

An elided edit (docs/tools.md#elided-edits) names the file's lines by the lines around
each elision; those anchors must be found as whole lines, in order, and nowhere else. A
block is looked for exactly first, then (when the caller allows) ignoring whitespace at
line ends, then ignoring each line's leading and trailing whitespace: the first layer
that finds the block anywhere decides, as for a find text.

Placement takes every block's leftmost possible place (left to right) and its rightmost
(right to left); the anchors are placed in exactly one way when the two agree, and
otherwise the first block where they differ is ambiguous. Nothing here guesses.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from karyi.workspace.matching import Lines
from karyi.workspace.patched import PatchedText

EXACT, TRAILING, TRIMMED = "exact", "trailing_whitespace", "trimmed_lines"
LAYERS = (EXACT, TRAILING, TRIMMED)


@dataclass(frozen=True)
class Block:
    """Lines the model wrote that must be found in the text as whole lines.

    An empty block stands for the start (`at_end` False) or the end of the text.
    """

    lines: tuple[str, ...]
    at_end: bool = False


@dataclass(frozen=True)
class Spot:
    """Where a block lies: [start, end) offsets, `end` past its last line's newline."""

    start: int
    end: int


@dataclass(frozen=True)
class Found:
    """A block's possible spots (sorted) and the layer that found them."""

    spots: tuple[Spot, ...]
    layer: str


class Unplaced(Exception):
    """The blocks cannot be placed in exactly one way; `block` names the first at fault."""

    def __init__(self, why: str, block: int, spots: Sequence[Spot] = ()) -> None:
        super().__init__(why)
        self.why = why  # "missing", "order" or "ambiguous"
        self.block = block
        self.spots = tuple(spots)


class Haystack:
    """The text blocks are looked for in, with its lines split only when a layer needs them."""

    def __init__(self, doc: PatchedText) -> None:
        self.doc = doc
        self._lines: Lines | None = None
        self._keys: dict[str, dict[str, list[int]]] = {}

    @property
    def lines(self) -> Lines:
        """The current text's lines (materialised once)."""
        if self._lines is None:
            self._lines = Lines(self.doc.text())
        return self._lines

    def find(self, block: Block, layers: Sequence[str]) -> Found:
        """The spots of `block` at the first layer that has any."""
        if not block.lines:
            at = self.doc.length if block.at_end else 0
            return Found((Spot(at, at),), EXACT)
        for layer in layers:
            spots = self._exact(block) if layer == EXACT else self._keyed(block, layer)
            if spots:
                return Found(tuple(spots), layer)
        return Found((), "")

    def _exact(self, block: Block) -> list[Spot]:
        needle = "\n".join(block.lines)
        doc, out = self.doc, []
        for s in doc.find_all(needle):
            e = s + len(needle)
            if (s == 0 or doc.slice(s - 1, s) == "\n") and (
                e == doc.length or doc.slice(e, e + 1) == "\n"
            ):
                out.append(Spot(s, min(e + 1, doc.length)))
        return out

    def _keyed(self, block: Block, layer: str) -> list[Spot]:
        index = self._index(layer)
        keys = [_key(ln, layer) for ln in block.lines]
        lines = self.lines
        out = []
        for i in index.get(keys[0], ()):
            k = len(keys)
            if i + k <= len(lines) and all(
                _key(lines.lines[i + j], layer) == keys[j] for j in range(1, k)
            ):
                start, end = lines.span(i, k, newline=True)
                out.append(Spot(start, end))
        return out

    def _index(self, layer: str) -> dict[str, list[int]]:
        if layer not in self._keys:
            index: dict[str, list[int]] = {}
            for i, ln in enumerate(self.lines.lines):
                index.setdefault(_key(ln, layer), []).append(i)
            self._keys[layer] = index
        return self._keys[layer]

    def line_of(self, offset: int) -> int:
        """The 1-based line number of an offset."""
        return self.doc.slice(0, offset).count("\n") + 1


def _key(line: str, layer: str) -> str:
    return line.rstrip() if layer == TRAILING else line.strip()


AFTER, SAME_SEGMENT = "after", "same_segment"
"""How a block relates to the one before it: wholly after it, or written in the same
stretch of the model's text (it may overlap the one before, never start or end earlier)."""


def _fits(prev: Spot, cur: Spot, how: str) -> bool:
    if how == AFTER:
        return cur.start >= prev.end
    return cur.start >= prev.start and cur.end >= prev.end


def place(found: Sequence[Found], links: Sequence[str]) -> list[Spot]:
    """The one way to place every block in order; `links[i]` relates block i+1 to block i.

    Raises Unplaced when a block is nowhere, when no order fits, or when two do.
    """
    for i, f in enumerate(found):
        if not f.spots:
            raise Unplaced("missing", i)
    left = _greedy(found, links, leftmost=True)
    right = _greedy(found, links, leftmost=False)
    if left is None or right is None:
        return _no_order(found, links)
    for i, (a, b) in enumerate(zip(left, right, strict=True)):
        if a != b:
            raise Unplaced("ambiguous", i, (a, b))
    return left


def _greedy(found: Sequence[Found], links: Sequence[str], leftmost: bool) -> list[Spot] | None:
    order = range(len(found)) if leftmost else range(len(found) - 1, -1, -1)
    chosen: dict[int, Spot] = {}
    for i in order:
        spots = found[i].spots
        if leftmost:
            prev = chosen.get(i - 1)
            pick = next(
                (s for s in _from(spots, prev) if prev is None or _fits(prev, s, links[i - 1])),
                None,
            )
        else:
            nxt = chosen.get(i + 1)
            pick = next(
                (s for s in reversed(_upto(spots, nxt)) if nxt is None or _fits(s, nxt, links[i])),
                None,
            )
        if pick is None:
            return None
        chosen[i] = pick
    return [chosen[i] for i in range(len(found))]


def _from(spots: Sequence[Spot], prev: Spot | None) -> Sequence[Spot]:
    """The spots that may follow `prev` (a cheap lower bound; `_fits` decides)."""
    if prev is None:
        return spots
    return spots[bisect_left([s.start for s in spots], prev.start) :]


def _upto(spots: Sequence[Spot], nxt: Spot | None) -> Sequence[Spot]:
    if nxt is None:
        return spots
    return spots[: bisect_right([s.start for s in spots], nxt.start)]


def _no_order(found: Sequence[Found], links: Sequence[str]) -> list[Spot]:
    """Name the first block that cannot follow the ones before it."""
    for n in range(2, len(found) + 1):
        if _greedy(found[:n], links[: n - 1], leftmost=True) is None:
            raise Unplaced("order", n - 1, found[n - 1].spots[:3])
    raise Unplaced("order", len(found) - 1)
