"""The pieces of the conversation on screen: the user's message, the model's thinking
collapsed (its prose is `answer.py`), each tool call as a card
with its live output, status and time, and one-line notices (docs/terminal.md)."""

from __future__ import annotations

import time

from rich.text import Text
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Collapsible, Static

OUTPUT_LINES = 12
"""Lines of a call's live output a card keeps in view (the last ones)."""


class Conversation(VerticalScroll):
    """The conversation's scrolling column, anchored at its end once it is taller than
    the screen: it follows what is added in the same layout (until the user scrolls
    up). Its content's new height moves the scrollbar in the layout that found it;
    Textual's default lays the screen out a second time for it, a second frame for each
    line a streaming answer grows (docs/terminal.md#speed)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)

    def watch_virtual_size(self, size: Size) -> None:
        """Anchor at the end when the content overflows (a short conversation stays at
        the top: an anchored one would be drawn at the bottom)."""
        overflowing = size.height > self.scrollable_content_region.height
        if overflowing != self.is_anchored:
            self.anchor(overflowing)


class UserMessage(Static):
    """What the user sent (`› text`), or steered into a running turn (`↪ text`)."""

    DEFAULT_CSS = """
    UserMessage { margin: 1 0 0 0; color: $text; text-style: bold; }
    UserMessage.steer { color: $accent; text-style: none; margin: 0; }
    """

    def __init__(self, text: str, *, steer: bool = False) -> None:
        mark = "↪ " if steer else "› "
        super().__init__(Text(mark + text), classes="steer" if steer else "")


class ThinkingBlock(Collapsible):
    """The model's thinking: collapsed under one title line, opened with a click or Enter."""

    DEFAULT_CSS = """
    ThinkingBlock { border: none; padding: 0; margin: 0; background: $background; }
    ThinkingBlock Contents { padding: 0 0 0 2; }
    ThinkingBlock Static { color: $text-muted; text-style: italic; }
    """

    def __init__(self, text: str = "") -> None:
        self.body = Static(text)
        self.text = text
        super().__init__(self.body, title="thinking", collapsed=True)

    def add(self, fragment: str) -> None:
        """Append to the thinking (collapsed, its growing text lays nothing out: opening
        it does)."""
        self.text += fragment
        self.body.update(self.text, layout=not self.collapsed)


class NoticeLine(Static):
    """A notice (`ℹ`), an error (`✗`) or the end of a turn (`—`), one line each."""

    DEFAULT_CSS = """
    NoticeLine { color: $warning; padding: 0 1; }
    NoticeLine.error { color: $error; text-style: bold; }
    NoticeLine.dim { color: $text-muted; }
    """


STATUS_MARKS = {
    "queued": ("○", "dim"),
    "waiting": ("?", "bold magenta"),
    "running": ("◐", "cyan"),
    "done": ("✓", "green"),
    "failed": ("✗", "red"),
    "rejected": ("✗", "yellow"),
}


class ToolCard(Vertical):
    """One tool call: its one-line description, its status and time, its live output
    (the last lines), then a preview of its result."""

    DEFAULT_CSS = """
    ToolCard { height: auto; width: 1fr; border: round $primary-darken-2; padding: 0 1; }
    ToolCard.failed { border: round $error; }
    ToolCard .head { height: 1; }
    ToolCard .output { color: $text-muted; max-height: 14; }
    """

    def __init__(self, call_id: str, description: str, *, status: str = "queued") -> None:
        super().__init__()
        self.call_id = call_id
        self.description = description
        self.status = status
        self.started = time.monotonic()
        self.seconds: float | None = None
        self.detail = ""
        self.head = Static(classes="head")
        self.output = Static(classes="output")
        self.output.display = False
        self._lines: list[str] = []
        self._partial = ""

    def compose(self):  # type: ignore[no-untyped-def]
        """The head line and the output under it."""
        yield self.head
        yield self.output

    def on_mount(self) -> None:
        """Draw the head, and keep its clock going while the call runs."""
        self._draw()
        self.set_interval(0.5, self._tick)

    def _tick(self) -> None:
        if self.status in ("queued", "running", "waiting"):
            self._draw()

    def set_status(self, status: str, *, seconds: float | None = None, detail: str = "") -> None:
        """Move the card to `status` (`queued`, `waiting`, `running`, `done`, `failed`,
        `rejected`); a finished call gives its time and a word on how it ended."""
        self.status = status
        if status == "running":
            self.started = time.monotonic()
        if seconds is not None:
            self.seconds = seconds
        self.detail = detail
        self.set_class(status in ("failed",), "failed")
        if self.is_mounted:
            self._draw()

    def add_output(self, text: str) -> None:
        """Live output of the running call: the card shows its last lines."""
        text = self._partial + text.replace("\r\n", "\n")
        *whole, self._partial = text.split("\n")
        self._lines.extend(whole)
        del self._lines[:-OUTPUT_LINES]
        self._show_output()

    def set_result(self, preview: str) -> None:
        """What the call gave back, in a few lines, in place of its live output."""
        self._lines, self._partial = preview.splitlines()[-OUTPUT_LINES:], ""
        self._show_output()

    def _show_output(self) -> None:
        shown = [*self._lines, self._partial] if self._partial else self._lines
        self.output.update(Text("\n".join(shown)))
        self.output.display = bool(shown)

    def _draw(self) -> None:
        mark, style = STATUS_MARKS.get(self.status, ("●", "cyan"))
        live = self.status in ("queued", "running", "waiting")
        seconds = time.monotonic() - self.started if live else self.seconds
        head = Text.assemble((f"{mark} ", style), (self.description, "bold"))
        head.append(f"  {self.status}", style=style)
        if seconds is not None:
            head.append(f"  {seconds:.1f}s", style="dim")
        if self.detail:
            head.append(f"  {self.detail}", style=style)
        self.head.update(head)
