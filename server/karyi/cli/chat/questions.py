"""The chat's questions to the user, answered with single keys where the conversation
is: a call's permission (`y` once, `a` always this session, `n` no, `f` no with feedback
typed there and then), a proposed edit as a coloured diff reviewed hunk by hunk, and a
secret value typed into a masked field that never shows it (docs/terminal.md)."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Static

from karyi.agent.review.approval import ApprovalRequest, Decision
from karyi.agent.review.edit_answer import edit_decision
from karyi.secrets.request import ValueAnswer, ValueRequest
from karyi.workspace.editor import PlannedWrite
from karyi.workspace.hunks import Hunk

LINE_STYLE = {"+": "green", "-": "red", "\\": "dim"}


def hunk_text(write: PlannedWrite, hunk: Hunk, *, ticked: bool, current: bool) -> Text:
    """One hunk: its header with the tick the user gives it, its lines coloured."""
    mark = "[✓]" if ticked else "[ ]"
    pointer = "▶ " if current else "  "
    text = Text.assemble(
        (pointer, "bold magenta"),
        (f"{mark} ", "green" if ticked else "red"),
        (f"{write.display} {hunk.header}", "bold cyan" if current else "cyan"),
    )
    for line in hunk.lines:
        text.append("\n    " + line, style=LINE_STYLE.get(line[:1], "") or None)
    return text


class PermissionQuestion(Vertical, can_focus=True):
    """A call waiting for the user's answer; `answer` is the future the approver awaits.

    An edit's diff is shown hunk by hunk: ↑/↓ (or k/j) move between hunks, space ticks
    or unticks one, Enter applies the ticked hunks; y applies the whole call."""

    DEFAULT_CSS = """
    PermissionQuestion { height: auto; border: heavy $accent; padding: 0 1; }
    PermissionQuestion:focus { border: heavy $warning; }
    PermissionQuestion .hint { color: $warning; text-style: bold; }
    PermissionQuestion Input { display: none; }
    PermissionQuestion.feedback Input { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "hunk(1)", show=False),
        Binding("up,k", "hunk(-1)", show=False),
    ]

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request
        self.answer: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        conf = request.confirmation
        self.always = conf is None or conf.always
        self.hunks = [(w, h) for w in (conf.files if conf else ()) for h in w.diff().hunks]
        self.tickable = len(self.hunks) > 1
        """Hunks are answered one by one (a call previews each file once, its hunks
        numbered once: tools/builtin/edit/pairs.py)."""
        self.ticked = [True] * len(self.hunks)
        self.current = 0
        self.body = Static()
        self.hint = Static(classes="hint")
        self.feedback = Input(placeholder="what should the model do instead? (Enter sends)")

    def compose(self):  # type: ignore[no-untyped-def]
        """The request, the diff, the keys, the feedback field (shown with `f`)."""
        yield self.body
        yield self.hint
        yield self.feedback

    def on_mount(self) -> None:
        """Draw the question."""
        self._draw()

    def _draw(self) -> None:
        parts: list[RenderableType] = [Text(f"? {self.request.description}", style="bold")]
        conf = self.request.confirmation
        if conf is not None and conf.details:
            parts.append(Text("  " + conf.details.rstrip().replace("\n", "\n  ")))
        if self.hunks:
            parts += [
                hunk_text(w, h, ticked=self.ticked[i], current=i == self.current)
                for i, (w, h) in enumerate(self.hunks)
            ]
        elif conf is not None and conf.diff:
            parts.append(_plain_diff(conf.diff))
        if conf is not None and conf.url:
            parts.append(Text(f"  {conf.url}", style="underline"))
        if conf is not None and conf.sandboxed is not None:
            parts.append(_sandbox_line(conf.sandboxed))
        if self.request.reason:
            parts.append(Text(f"  ({self.request.reason})", style="dim"))
        self.body.update(Group(*parts))
        keys = "y allow once · " + ("a always (this session) · " if self.always else "")
        keys += "n reject · f reject with feedback"
        if self.tickable:
            keys += " · ↑↓ hunk · space tick · Enter apply ticked"
        self.hint.update(keys)

    def on_key(self, event: events.Key) -> None:
        """The single-key answers (the feedback field takes keys while it is open)."""
        if self.has_class("feedback") or self.answer.done():
            return
        key = event.key
        handled = True
        if key == "y":
            self._decide(Decision(True))
        elif key == "a" and self.always:
            self._decide(Decision(True, remember="session"))
        elif key == "n":
            self._decide(Decision(False))
        elif key == "f":
            self.add_class("feedback")
            self.feedback.focus()
        elif key == "space" and self.tickable:
            self.ticked[self.current] = not self.ticked[self.current]
            self._draw()
        elif key == "enter" and self.tickable:
            self._decide(self._ticked_decision())
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()

    def action_hunk(self, step: int) -> None:
        """↓/j and ↑/k: the next or previous hunk."""
        if self.hunks and not self.has_class("feedback"):
            self.current = (self.current + step) % len(self.hunks)
            self._draw()

    def _ticked_decision(self) -> Decision:
        if all(self.ticked):
            return Decision(True)
        accepted = [
            f"{w.display}#{h.id}" for (w, h), t in zip(self.hunks, self.ticked, strict=True) if t
        ]
        return edit_decision({"acceptedHunks": accepted}, self.request) or Decision(True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """The feedback typed after `f`: the call is rejected with it."""
        event.stop()
        self._decide(Decision(False, event.value.strip() or None))

    def _decide(self, decision: Decision) -> None:
        if not self.answer.done():
            self.answer.set_result(decision)

    @property
    def summary(self) -> str:
        """How the question was answered, in a few words (for the call's card)."""
        if not self.answer.done() or self.answer.cancelled():
            return "not answered"
        d = self.answer.result()
        if d.allow:
            return "allowed always" if d.remember else "allowed"
        return f"rejected: {d.feedback}" if d.feedback else "rejected"


def _plain_diff(diff: str) -> Text:
    text = Text()
    for line in diff.rstrip().splitlines():
        style = "bold" if line.startswith(("+++", "---")) else LINE_STYLE.get(line[:1])
        text.append(line + "\n", style=style or None)
    text.rstrip()
    return text


def _sandbox_line(sandboxed: bool) -> Text:
    if sandboxed:
        return Text("  [sandboxed: files outside the workspace read-only, no network]", "dim")
    return Text("  [NOT sandboxed: the command can reach everything you can]", "bold yellow")


class SecretQuestion(Vertical):
    """`get_value`: the value is typed into a masked field (never drawn, never logged),
    then `s` saves it for later sessions or Enter uses it for this one only."""

    DEFAULT_CSS = """
    SecretQuestion { height: auto; border: heavy $warning; padding: 0 1; }
    SecretQuestion .hint { color: $text-muted; }
    """

    def __init__(self, request: ValueRequest) -> None:
        super().__init__()
        self.request = request
        self.answer: asyncio.Future[ValueAnswer | None] = asyncio.get_running_loop().create_future()
        self.field = Input(password=True, placeholder=f"{request.key} (hidden)")
        self.save = False

    def compose(self):  # type: ignore[no-untyped-def]
        """The question, the masked field, the keys."""
        r = self.request
        kept = " (a value is stored: Enter on an empty field keeps it)" if r.exists else ""
        yield Static(Text.assemble(("The agent asks for a secret value: ", "bold"), r.key))
        yield Static(Text(f"Reason: {r.reason}{kept}"))
        yield self.field
        yield Static(
            "Enter: use it for this session · Ctrl+S: use it and save it · Esc: refuse",
            classes="hint",
        )

    def on_mount(self) -> None:
        """Typing goes to the field at once."""
        self.field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """The value given (empty: refused, or the stored one kept)."""
        event.stop()
        self._give(event.value)

    def on_key(self, event: events.Key) -> None:
        """Ctrl+S saves the value; Esc refuses to give one."""
        if event.key == "ctrl+s":
            self.save = True
            self._give(self.field.value)
        elif event.key == "escape":
            self._refuse()
        else:
            return
        event.stop()
        event.prevent_default()

    def _give(self, value: str) -> None:
        if self.answer.done():
            return
        if not value:
            self.answer.set_result(ValueAnswer("", False) if self.request.exists else None)
        else:
            self.answer.set_result(ValueAnswer(value, self.save, self.request.note))
        self.field.value = ""

    def _refuse(self) -> None:
        if not self.answer.done():
            self.answer.set_result(None)
        self.field.value = ""
