"""The terminal view of a turn (`karyi run`): agent events drawn with rich.

Text streams as the model writes it; each tool call gets a line when it is queued and
a status line when it finishes (with a few lines of its output); notices and errors
stand out. The questions to the user (approvals, secret values) are in `cli.ask`.
"""

from __future__ import annotations

import json

from rich.console import Console
from rich.text import Text

from karyi.agent import events
from karyi.agent.events import (
    Error,
    Event,
    Hook,
    Mode,
    Notice,
    Step,
    Subagent,
    Todos,
    ToolDone,
    ToolOutput,
    ToolQueued,
    TurnFinished,
    TurnStarted,
    Usage,
)

PREVIEW_LINES = 4


def _preview(text: str, width: int = 160) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    shown = [
        line if len(line) <= width else line[: width - 1] + "…" for line in lines[:PREVIEW_LINES]
    ]
    if len(lines) > PREVIEW_LINES:
        shown.append(f"… {len(lines) - PREVIEW_LINES} more line(s)")
    return "\n".join(shown)


TODO_MARKS = {"pending": ("☐", "dim"), "in_progress": ("▶", "bold cyan"), "done": ("☑", "green")}


def _todos(event: Todos) -> Text:
    """The whole task list, one line per item, after each change."""
    done = sum(1 for i in event.items if i.status == "done")
    lines = Text(f"Tasks ({done}/{len(event.items)} done)", style="bold")
    for item in event.items:
        mark, style = TODO_MARKS.get(item.status, ("☐", "dim"))
        lines.append(f"\n  {mark} {item.text}", style=style)
    return lines


def cost_text(turn: float | None, session: float | None) -> str:
    """` · $0.0123 (session $0.0456)`, or nothing when the model has no price."""
    if turn is None:
        return ""
    total = f" (session ${session:.4f})" if session is not None and session > turn else ""
    return f" · ${turn:.4f}{total}"


def hook_line(event: Hook) -> str | None:
    """What a hook did, in the words every front end uses (None: nothing to say)."""
    said = event.stderr or event.stdout
    if event.status == "ok":
        return f"{event.event} hook: {event.stdout}" if event.stdout else None
    verb = {"blocked": "blocked it", "reported": "reported to the model"}.get(
        event.status, "failed"
    )
    return f"{event.event} hook `{event.command}` {verb}" + (f": {said}" if said else "")


def _hook(event: Hook, verbose: bool) -> Text | None:
    line = hook_line(event)
    if line is None or (event.status == "ok" and event.event != "turnEnd" and not verbose):
        return None
    return Text(f"⚑ {line}", style="yellow" if event.status != "ok" else "dim")


class TerminalView:
    """Draws agent events on a console (stderr for chrome, stdout for the answer text)."""

    def __init__(self, out: Console, err: Console, *, verbose: bool = False) -> None:
        self.out = out
        self.err = err
        self.verbose = verbose
        self._channel = ""
        self._at_line_start = True

    def __call__(self, event: Event) -> None:
        """Render one event."""
        if isinstance(event, Subagent):
            self._nested(event)
            return
        if isinstance(event, events.Text):
            self._text(event)
            return
        line = self._line(event)
        if line is not None:
            self._break_line()
            if isinstance(event, ToolDone):
                self._done(event)
            else:
                self.err.print(line, end="" if isinstance(event, ToolOutput) else "\n")

    def _line(self, event: Event) -> Text | None:
        """What `event` prints (None: nothing, so the streamed text is not broken)."""
        if isinstance(event, Step) and (self.verbose or event.step > 1):
            return Text(f"· step {event.step} ({event.model})", style="dim")
        if isinstance(event, ToolQueued):
            return Text.assemble(("● ", "cyan"), (event.description, "bold"))
        if isinstance(event, ToolOutput) and self.verbose:
            return Text(event.text, style="dim")
        if isinstance(event, ToolDone):
            return Text("")
        if isinstance(event, Todos):
            return _todos(event)
        if isinstance(event, Hook):
            return _hook(event, self.verbose)
        if isinstance(event, Mode):
            return Text(f"mode: {event.mode}", style="bold cyan")
        if isinstance(event, TurnStarted) and event.mode == "plan":
            return Text("plan mode · only reading tools; the answer is a plan", style="bold cyan")
        if isinstance(event, Notice):
            return Text(f"ℹ {event.message}", style="yellow")
        if isinstance(event, Error):
            return Text(f"✗ {event.message}", style="bold red")
        if isinstance(event, Usage) and self.verbose:
            return Text(
                f"tokens: {event.input_tokens} in / {event.output_tokens} out"
                + cost_text(event.turn_cost, event.session_cost),
                style="dim",
            )
        if isinstance(event, TurnFinished):
            cached = f" ({event.cached_tokens:,} cached)" if event.cached_tokens else ""
            return Text(
                f"— {event.stop_reason.replace('_', ' ')} · {event.steps} step(s) · "
                f"{event.input_tokens:,} in{cached} / {event.output_tokens:,} out tokens"
                + cost_text(event.turn_cost, event.session_cost),
                style="dim",
            )
        return None

    def _text(self, event: events.Text) -> None:
        if self._at_line_start and not event.text.strip():
            return  # blank text between tool calls only makes gaps
        if event.channel != self._channel:
            self._break_line()
            self._channel = event.channel
        if event.channel == "thinking":
            self.err.print(Text(event.text, style="dim italic"), end="")
        else:
            self.out.file.write(event.text)
            self.out.file.flush()
        self._at_line_start = event.text.endswith("\n")

    def _break_line(self) -> None:
        if not self._at_line_start:
            if self._channel == "thinking":
                self.err.print()
            else:
                self.out.file.write("\n")
                self.out.file.flush()
            self._at_line_start = True
        self._channel = ""

    def _nested(self, event: Subagent) -> None:
        """A subagent's calls and notices, indented under the call that runs it."""
        inner, agent = event.event, event.agent
        while isinstance(inner, Subagent):
            agent = f"{agent} › {inner.agent}"
            inner = inner.event
        if isinstance(inner, ToolQueued):
            line = Text.assemble(("    ↳ ", "cyan"), (f"{agent}: ", "dim"), inner.description)
        elif isinstance(inner, ToolDone):
            ok = inner.result.success
            code = "" if ok else f"  {inner.result.error.code if inner.result.error else 'error'}"
            line = Text.assemble(
                ("    ", ""),
                ("✓ " if ok else "✗ ", "green" if ok else "red"),
                (f"{agent}: {inner.call.name}", "dim"),
                (code, "red"),
            )
        elif isinstance(inner, Notice | Error):
            line = Text(f"    ↳ {agent}: {inner.message}", style="yellow")
        else:
            return
        self._break_line()
        self.err.print(line)

    def _done(self, event: ToolDone) -> None:
        r = event.result
        name = event.call.name or "(malformed call)"
        if r.success:
            head = Text.assemble(
                ("  ✓ ", "green"), (name, "bold"), (f"  {event.seconds:.2f}s", "dim")
            )
            if r.status:
                head.append(f"  [{r.status}]", style="yellow")
        else:
            code = r.error.code if r.error else "error"
            head = Text.assemble(("  ✗ ", "red"), (name, "bold"), (f"  {code}", "red"))
        sandboxed = r.metadata.get("sandboxed")
        if sandboxed is True:
            head.append("  sandboxed", style="dim")
        elif sandboxed is False:
            head.append("  NOT sandboxed", style="bold yellow")
        self.err.print(head)
        display = r.display if isinstance(r.display, str) else json.dumps(r.display)
        body = _preview(display if r.success else (r.error.message if r.error else display))
        if body:
            self.err.print(Text("    " + body.replace("\n", "\n    "), style="dim"))
