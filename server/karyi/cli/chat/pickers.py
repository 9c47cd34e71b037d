"""The chat's pickers, each a list over the conversation: `/resume` (a stored session of
the workspace), `/model` (the models on offer) and rewind (Esc Esc: one of the session's
turns, taken back with its code; files you changed yourself are kept)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from karyi.cli.chat.widgets import NoticeLine

if TYPE_CHECKING:
    from karyi.cli.chat.surface import ChatSurface


class Picker(ModalScreen[str | None]):
    """A titled list; Enter picks an entry (its id), Esc picks none."""

    DEFAULT_CSS = """
    Picker { align: center middle; }
    Picker > Vertical { width: 90%; height: auto; max-height: 80%; border: thick $accent;
                        background: $surface; padding: 0 1; }
    Picker OptionList { height: auto; max-height: 30; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_none", priority=True)]

    def __init__(self, title: str, entries: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.entries = entries

    def compose(self) -> ComposeResult:
        """The title and the list."""
        with Vertical():
            yield Static(Text(self.title_text, style="bold"))
            yield OptionList(*(Option(label, id=key) for key, label in self.entries))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on an entry."""
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        """Esc: nothing picked."""
        self.dismiss(None)


def _say(app: ChatSurface, text: str, classes: str = "dim") -> None:
    app.feed.mount(NoticeLine(Text(text), classes=classes))


async def resume(app: ChatSurface, session_id: str) -> None:
    """`/resume [ID]`: continue another stored session, its turns drawn."""
    if not session_id:
        sessions = await asyncio.to_thread(app.runtime.store.all)
        entries = [
            (
                s.id,
                f"{s.id}  {time.strftime('%Y-%m-%d %H:%M', time.localtime(s.updated))}  "
                f"{s.title or '(untitled)'}",
            )
            for s in sorted(sessions, key=lambda s: s.updated, reverse=True)
            if app.live is None or s.id != app.live.id
        ]
        if not entries:
            _say(app, "No other stored session in this workspace.")
            return
        picked = await app.push_screen_wait(Picker("Resume a session", entries))
        if picked is None:
            return
        session_id = picked
    if app.live is not None and app.live.agent.busy:
        _say(app, "A turn is running: press Esc first.", "error")
        return
    try:
        app.host.require(session_id)
    except Exception as exc:  # no such session: said, the chat stays where it was
        _say(app, f"✗ {exc}", "error")
        return
    app.session_id = session_id
    await app.log_view.remove_children()
    await app.open_session()
    _say(app, f"resumed session {session_id}")


async def choose_model(app: ChatSurface, model: str) -> None:
    """`/model [provider:name]`: the session's model from its next turn."""
    from karyi.llm.base import ProviderError

    if not model:
        settings = app.runtime.settings
        entries, note = await app.host.catalog.models(settings, app.runtime.model_env())
        if note:
            _say(app, f"ℹ {note}")
        if not entries:
            _say(app, "No models on offer: set `model` or `models` in the settings.")
            return
        picked = await app.push_screen_wait(
            Picker("Model for the next turns", [(e.id, f"{e.id}  ({e.source})") for e in entries])
        )
        if picked is None:
            return
        model = picked
    try:
        app.live = await app.host.set_model(app.session_id, model)
    except ProviderError as exc:
        _say(app, f"✗ {exc.message}", "error")
        return
    except Exception as exc:  # busy: said
        _say(app, f"✗ {exc}", "error")
        return
    app.session_id = app.live.id
    app.refresh_status()
    _say(app, f"model: {model}")


async def open_rewind(app: ChatSurface) -> None:
    """Esc Esc or `/rewind`: pick a turn; the session and its code go back to before it
    (files changed by you since are kept), and its prompt is put back in the input."""
    from karyi.agent.session.checkpoints import CheckpointError
    from karyi.agent.session.rewind import HistoryError
    from karyi.agent.turn.timeline import rewind_agent

    live = app.live
    if live is None or live.agent.busy:
        return
    transcript = await asyncio.to_thread(live.transcript)
    turns = [t for t in transcript.turns if t.status != "rewound"]
    if not turns:
        _say(app, "Nothing to rewind: this session has no turns yet.")
        return
    entries = [
        (t.id, f"{n}. {t.prompt.splitlines()[0][:100] if t.prompt else '(empty)'}")
        for n, t in reversed(list(enumerate(turns, 1)))
    ]
    picked = await app.push_screen_wait(Picker("Rewind to before which turn?", entries))
    if picked is None:
        return
    try:
        done = await rewind_agent(live.agent, picked, "both")
    except (HistoryError, CheckpointError) as exc:
        _say(app, f"✗ {exc}", "error")
        return
    await app.log_view.remove_children()
    await app.show_history()
    said = [f"rewound: {done.plan.turns} turn(s) out of the conversation"]
    if done.restored:
        said.append(f"{len(done.restored)} file(s) restored")
    if done.kept:
        said.append(f"kept your changes to {', '.join(done.kept)}")
    _say(app, "↶ " + "; ".join(said), "")
    app.prompt.value = next(t.prompt for t in turns if t.id == picked)
    app.prompt.cursor_position = len(app.prompt.value)
    app.refresh_status()
