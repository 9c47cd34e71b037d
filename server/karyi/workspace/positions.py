"""LSP positions: 0-based line and character, the character in UTF-16 code units.

UTF-16 is LSP's default `positionEncoding`, and the one every client supports.
`utf16_column` and `codepoint_index` convert between those columns and Python string
indices (code points). A line ends at `\\n` (a `\\r\\n` file's `\\r` belongs to the line
ending); a lone `\\r` does not end a line here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict


def utf16_len(text: str) -> int:
    """Length of `text` in UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def utf16_column(line: str, index: int) -> int:
    """The UTF-16 column of Python index `index` in `line`."""
    return utf16_len(line[:index])


def codepoint_index(line: str, column: int) -> int:
    """The Python index of UTF-16 column `column` in `line` (clamped to the line)."""
    if line.isascii():
        return min(column, len(line))
    units = 0
    for i, ch in enumerate(line):
        if units >= column:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


class PositionJson(TypedDict):
    """A position's JSON form (LSP)."""

    line: int
    character: int


class RangeJson(TypedDict):
    """A range's JSON form (LSP)."""

    start: PositionJson
    end: PositionJson


class TextEditJson(TypedDict):
    """A text edit's JSON form (LSP `TextEdit`)."""

    range: RangeJson
    newText: str


@dataclass(frozen=True)
class Position:
    """A place in a document: 0-based line, UTF-16 character column (LSP)."""

    line: int
    character: int

    def to_json(self) -> PositionJson:
        """LSP's JSON form."""
        return {"line": self.line, "character": self.character}


@dataclass(frozen=True)
class Range:
    """A span of a document between two positions (LSP)."""

    start: Position
    end: Position

    def to_json(self) -> RangeJson:
        """LSP's JSON form."""
        return {"start": self.start.to_json(), "end": self.end.to_json()}


@dataclass(frozen=True)
class TextEdit:
    """Replace `range` of the original with `new_text` (LSP `TextEdit`)."""

    range: Range
    new_text: str

    def to_json(self) -> TextEditJson:
        """LSP's JSON form."""
        return {"range": self.range.to_json(), "newText": self.new_text}


def splice_range(text: str, rng: tuple[int, int, int, int], new: str) -> str:
    """Apply one LSP range change (UTF-16 columns) to `text`."""
    sl, sc, el, ec = rng
    lines = text.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)

    def offset(line: int, col: int) -> int:
        if line >= len(lines):
            return len(text)
        return starts[line] + codepoint_index(lines[line], col)

    return text[: offset(sl, sc)] + new + text[offset(el, ec) :]
