"""The model's prose as Markdown (rich's renderer, code blocks highlighted), drawn as
lines the widget keeps (docs/terminal.md#speed).

A streaming answer is cut into blocks as it grows: a block already whole (up to a blank
line outside a code fence) is rendered once and its lines kept; only the last block,
still growing, is rendered again, at most once a frame. When the answer's height does
not change only that block's lines are repainted and nothing is laid out; when it
does, the screen is laid out once, with every other widget's lines already known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widget import Widget

if TYPE_CHECKING:
    from rich.markdown import Markdown

FRAME = 1 / 60
"""Seconds between redraws of a streaming answer at most."""


def whole_blocks(text: str, start: int) -> int:
    """Where the Markdown blocks of `text[start:]` that are already whole end: after the
    last blank line outside a code fence (`start` when there is none)."""
    cut, fenced, at = start, False, start
    for line in text[start:].splitlines(keepends=True):
        at += len(line)
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and not line.strip() and line.endswith("\n") and at < len(text):
            cut = at
    return cut


def markdown(text: str) -> Markdown:
    """`text` as rich renders the chat's Markdown."""
    from rich.markdown import Markdown  # markdown-it loads after the first screen

    return Markdown(text, code_theme="monokai", hyperlinks=False)


def warm_up() -> None:
    """Render a little Markdown off the screen: markdown-it's rules, pygments and its
    Python lexer load here (the chat's opening thread), not in the first answer's
    frame (~30 ms)."""
    from io import StringIO

    from rich.console import Console

    Console(file=StringIO(), width=40).print(markdown("*a* `b`\n\n```python\nx = 1\n```\n"))


class AnswerText(Widget):
    """The model's prose: whole blocks rendered once, the growing one redrawn."""

    DEFAULT_CSS = """
    AnswerText { height: auto; padding: 0 1; }
    """
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)
    """Its own size (it does not scroll): a new one needs no second layout."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.source = text
        self._frozen = len(text)
        """How much of `source` is in whole blocks (a stored answer is whole)."""
        self._blocks: list[str] = [text.strip("\n")] if text.strip() else []
        self._width = 0
        self._lines: list[Strip] = []
        """The whole blocks' lines at `_width`."""
        self._tail: list[Strip] = []
        """The growing block's lines at `_width`."""
        self._drawing = False

    def add(self, fragment: str) -> None:
        """Append `fragment`: drawn with whatever else arrived while the screen was busy."""
        if not fragment:
            return
        self.source += fragment
        if not self._drawing:
            self._drawing = True
            self.set_timer(FRAME, self._draw_pending)

    def _draw_pending(self) -> None:
        self._drawing = False
        self._draw()

    def _draw(self) -> None:
        height = len(self._lines) + len(self._tail)
        cut = whole_blocks(self.source, self._frozen)
        if cut > self._frozen:
            block = self.source[self._frozen : cut].strip("\n")
            if block.strip():
                self._blocks.append(block)
                if self._width:
                    self._lines += self._block_lines(block, first=not self._lines)
            self._frozen = cut
        if self._width:
            self._tail = self._tail_lines()
        if not self._width or len(self._lines) + len(self._tail) != height:
            self.refresh(layout=True)  # the conversation follows while anchored (app.py)
        else:
            self.refresh(Region(0, len(self._lines), self._width, len(self._tail)))

    def finish(self) -> None:
        """Nothing more comes: draw what is pending now."""
        if self.is_mounted:
            self._draw()

    def _block_lines(self, text: str, *, first: bool) -> list[Strip]:
        console, width = self.app.console, self._width
        options = console.options.update_width(width).update(height=None)
        rows = console.render_lines(markdown(text), options, style=self.rich_style, pad=True)
        gap = [] if first else [Strip.blank(width, self.rich_style)]
        return gap + [Strip(row, width) for row in _trimmed(rows)]

    def _tail_lines(self) -> list[Strip]:
        tail = self.source[self._frozen :].strip("\n")
        return self._block_lines(tail, first=not self._lines) if tail.strip() else []

    def _layout(self, width: int) -> None:
        """Render every block at `width` (a new width: the first layout, or a resize)."""
        if width == self._width or width <= 0:
            return
        self._width = width
        self._lines = []
        for block in self._blocks:
            self._lines += self._block_lines(block, first=not self._lines)
        self._tail = self._tail_lines()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The lines' count at `width` (rendered here when the width is new)."""
        self._layout(width)
        return len(self._lines) + len(self._tail)

    def render_line(self, y: int) -> Strip:
        """One kept line."""
        self._layout(self.size.width)
        if 0 <= y < len(self._lines):
            return self._lines[y]
        if 0 <= y - len(self._lines) < len(self._tail):
            return self._tail[y - len(self._lines)]
        return Strip.blank(self.size.width, self.rich_style)


def _trimmed(rows: list[list[Segment]]) -> list[list[Segment]]:
    """`rows` without the blank lines rich leaves after the last block."""
    while rows and not "".join(s.text for s in rows[-1]).strip():
        rows = rows[:-1]
    return rows
