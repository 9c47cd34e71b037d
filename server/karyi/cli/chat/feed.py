"""The agent's events drawn into the chat as they come: the one listener the chat
subscribes to a turn (agent/events.py). Prose streams into Markdown, thinking into a
collapsed block, each call into its card; notices, errors and the turn's end are lines.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widget import Widget

from karyi.agent import events
from karyi.agent.events import (
    Error,
    Event,
    Hook,
    Mode,
    Notice,
    Steered,
    Subagent,
    Todos,
    ToolAwaitingPermission,
    ToolDone,
    ToolOutput,
    ToolQueued,
    ToolRunning,
    TurnFinished,
    TurnStarted,
    Usage,
)
from karyi.cli.chat.answer import AnswerText
from karyi.cli.chat.collector import hold_full_collections, release_full_collections
from karyi.cli.chat.widgets import NoticeLine, ThinkingBlock, ToolCard, UserMessage
from karyi.cli.view import cost_text, hook_line

PREVIEW_LINES = 6


def result_preview(event: ToolDone) -> str:
    """A finished call's result (or error) in a few lines, for its card."""
    r = event.result
    if not r.success and r.error is not None:
        return r.error.message
    display = r.display if isinstance(r.display, str) else json.dumps(r.display)
    lines = [line for line in display.strip().splitlines() if line.strip()]
    more = [f"… {len(lines) - PREVIEW_LINES} more line(s)"] if len(lines) > PREVIEW_LINES else []
    return "\n".join(lines[:PREVIEW_LINES] + more)


def finished_line(event: TurnFinished) -> str:
    """`— end turn · 2 step(s) · 1,200 in / 40 out tokens · $0.01`: how a turn ended."""
    cached = f" ({event.cached_tokens:,} cached)" if event.cached_tokens else ""
    return (
        f"— {event.stop_reason.replace('_', ' ')} · {event.steps} step(s) · "
        f"{event.input_tokens:,} in{cached} / {event.output_tokens:,} out tokens"
        + cost_text(event.turn_cost, event.session_cost)
    )


class Feed:
    """Draws one session's events into the conversation `log`; `on_usage` and `on_mode`
    tell the status line."""

    def __init__(
        self,
        log: VerticalScroll,
        *,
        on_usage: Callable[[float | None], None] = lambda _cost: None,
        on_mode: Callable[[str], None] = lambda _mode: None,
    ) -> None:
        self.log = log
        self.on_usage = on_usage
        self.on_mode = on_mode
        self.cards: dict[str, ToolCard] = {}
        self.answer: AnswerText | None = None
        self.thinking: ThinkingBlock | None = None

    def mount(self, widget: Widget) -> None:
        """Add `widget` at the end of the conversation and keep the end in view."""
        self.log.mount(widget)
        self.log.scroll_end(animate=False)

    def __call__(self, event: Event) -> None:
        """Draw one event."""
        if isinstance(event, events.Text):
            self._text(event)
            return
        if isinstance(event, ToolQueued | ToolAwaitingPermission | ToolRunning | ToolOutput):
            self._call(event)
            return
        if isinstance(event, ToolDone):
            self._done(event)
            return
        if isinstance(event, Usage):
            self.on_usage(event.session_cost)
            return
        line = self._line(event)
        if line is not None:
            self.end_prose()
            self.mount(line)

    def _line(self, event: Event) -> NoticeLine | UserMessage | None:
        if isinstance(event, TurnStarted) and event.mode == "plan":
            return NoticeLine("plan mode · only reading tools; the answer is a plan")
        if isinstance(event, Steered):
            return UserMessage(event.text, steer=True)
        if isinstance(event, Notice) and event.topic != "checkpoint":
            return NoticeLine(Text(f"ℹ {event.message}"))
        if isinstance(event, Error):
            return NoticeLine(Text(f"✗ {event.message}"), classes="error")
        if isinstance(event, Mode):
            self.on_mode(event.mode)
            return NoticeLine(Text(f"mode: {event.mode}"), classes="dim")
        if isinstance(event, Hook):
            said = hook_line(event)
            return NoticeLine(Text(f"⚑ {said}")) if said and event.status != "ok" else None
        if isinstance(event, Todos):
            return NoticeLine(Text(todo_text(event)), classes="dim")
        if isinstance(event, Subagent):
            return _nested(event)
        if isinstance(event, TurnFinished):
            self.on_usage(event.session_cost)
            return NoticeLine(Text(finished_line(event)), classes="dim")
        return None

    def _text(self, event: events.Text) -> None:
        if event.channel == "thinking":
            if self.thinking is None:
                self.end_prose()
                self.thinking = ThinkingBlock()
                self.mount(self.thinking)
            self.thinking.add(event.text)
            return
        if self.answer is None:
            if not event.text.strip():
                return  # blank text between tool calls only makes gaps
            self.thinking = None
            self.answer = AnswerText()
            self.mount(self.answer)
            hold_full_collections()
        self.answer.add(event.text)

    def end_prose(self) -> None:
        """The prose so far is whole: what comes next starts a new block."""
        if self.answer is not None:
            self.answer.finish()
            release_full_collections()
        self.answer = None
        self.thinking = None

    def _call(self, event: ToolQueued | ToolAwaitingPermission | ToolRunning | ToolOutput) -> None:
        if isinstance(event, ToolOutput):
            card = self.cards.get(event.call_id)
            if card is not None:
                card.add_output(event.text)
            return
        if isinstance(event, ToolQueued):
            self.end_prose()
            card = ToolCard(event.call.id, event.description)
            self.cards[event.call.id] = card
            self.mount(card)
            return
        card = self.cards.get(event.call.id)
        if card is not None:
            card.set_status("waiting" if isinstance(event, ToolAwaitingPermission) else "running")

    def _done(self, event: ToolDone) -> None:
        card = self.cards.get(event.call.id)
        if card is None:
            self.end_prose()
            card = ToolCard(event.call.id, event.call.name or "(malformed call)")
            self.cards[event.call.id] = card
            self.mount(card)
        rejected = event.decision.startswith("rejected")
        status = "done" if event.result.success else "rejected" if rejected else "failed"
        code = event.result.error.code if event.result.error else ""
        detail = event.decision if rejected else str(code)
        card.set_status(status, seconds=event.seconds, detail=detail)
        card.set_result(result_preview(event))


TODO_MARKS = {"pending": "☐", "in_progress": "▶", "done": "☑"}


def todo_text(event: Todos) -> str:
    """The task list as it now stands, one line per item."""
    done = sum(1 for i in event.items if i.status == "done")
    lines = [f"Tasks ({done}/{len(event.items)} done)"]
    lines += [f"  {TODO_MARKS.get(i.status, '☐')} {i.text}" for i in event.items]
    return "\n".join(lines)


def _nested(event: Subagent) -> NoticeLine | None:
    """A subagent's calls and notices, one indented line each."""
    inner, agent = event.event, event.agent
    while isinstance(inner, Subagent):
        agent, inner = f"{agent} › {inner.agent}", inner.event
    if isinstance(inner, ToolQueued):
        return NoticeLine(Text(f"  ↳ {agent}: {inner.description}"), classes="dim")
    if isinstance(inner, ToolDone):
        mark = "✓" if inner.result.success else "✗"
        return NoticeLine(Text(f"  {mark} {agent}: {inner.call.name}"), classes="dim")
    if isinstance(inner, Notice | Error):
        return NoticeLine(Text(f"  ↳ {agent}: {inner.message}"))
    return None
