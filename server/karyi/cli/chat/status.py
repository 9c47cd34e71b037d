"""The chat's status line: the model, how much of its context window the conversation
takes, what the session cost, the mode (plan or act) and whether commands run in the
sandbox (docs/terminal.md#the-status-line)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from rich.text import Text
from textual.widgets import Static


def tokens(n: int) -> str:
    """`950`, `12.3k`, `1.2M`: a token count in a few characters."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


def short_model(label: str) -> str:
    """The model as the line names it: a replayed script by its file's name
    (`script:/tmp/x/turns.json (replay)` is `script:turns.json`), others as they are."""
    if not label.startswith("script:"):
        return label
    path = label.removeprefix("script:").removesuffix(" (replay)")
    return f"script:{PurePath(path).name}"


@dataclass
class StatusFacts:
    """What the status line says."""

    model: str = ""
    context_used: int = 0
    context_window: int = 0
    cost: float | None = None
    mode: str = "act"
    sandbox: str = "…"
    """`sandboxed`, `NOT sandboxed`, or `…` while it is being found out."""
    busy: str = ""
    """What the agent is doing (`working`, `2 queued`), empty when idle."""

    def text(self) -> Text:
        """The line: `model · ctx 3.1k/128k (2%) · $0.0123 · act · sandboxed`."""
        out = Text()
        out.append(short_model(self.model) or "no model", style="bold")
        if self.context_window:
            share = 100 * self.context_used / self.context_window
            used = f"{tokens(self.context_used)}/{tokens(self.context_window)}"
            out.append(f" · ctx {used} ({share:.0f}%)")
        else:
            out.append(f" · ctx {tokens(self.context_used)}")
        out.append(f" · ${self.cost:.4f}" if self.cost is not None else " · $–")
        out.append(" · ")
        out.append(self.mode, style="bold cyan" if self.mode == "plan" else "bold green")
        out.append(" · ")
        out.append(self.sandbox, style="bold yellow" if self.sandbox.startswith("NOT") else "")
        if self.busy:
            out.append(f" · {self.busy}", style="bold magenta")
        return out


class StatusLine(Static):
    """The line at the bottom of the chat; `show` redraws it with new facts."""

    DEFAULT_CSS = """
    StatusLine { dock: bottom; height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.facts = StatusFacts()

    def show(self, **changes: object) -> None:
        """Change some facts and redraw."""
        for name, value in changes.items():
            setattr(self.facts, name, value)
        self.update(self.facts.text())
