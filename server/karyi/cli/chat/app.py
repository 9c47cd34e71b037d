"""The chat's screen and keys: the conversation, the queue, the prompt and the status
line; turns run through the `AgentHost` every long-running front end uses.

Enter sends (queued while a turn runs), Ctrl+S steers the running turn, Esc stops it
(a proposal still waiting is kept, and the turn stops once it is answered), Esc Esc
opens rewind, Shift+Tab switches plan and act, `/exit` or Ctrl+D ends the chat with
status 0, Ctrl+C twice ends it (docs/terminal.md).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, ClassVar, TypeVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input, Static

from karyi.cli.chat.collector import keep_out_of_collections
from karyi.cli.chat.commands import LOCAL
from karyi.cli.chat.completion import Completer, CompletionList
from karyi.cli.chat.keys import PromptKeys
from karyi.cli.chat.pictures import PromptInput, message_parts
from karyi.cli.chat.status import StatusLine
from karyi.cli.chat.widgets import Conversation, NoticeLine, UserMessage

T = TypeVar("T")

if TYPE_CHECKING:  # the agent loads after the first screen (`_open`), never before it
    from karyi.agent.events import Event
    from karyi.agent.host import AgentHost, LiveSession
    from karyi.agent.review.approval import ApprovalRequest, Decision
    from karyi.agent.runtime import Runtime
    from karyi.cli.chat.feed import Feed
    from karyi.cli.chat.questions import PermissionQuestion
    from karyi.secrets.request import ValueAnswer, ValueRequest

DOUBLE_PRESS = 0.6
"""Seconds within which a second Esc opens rewind."""
PLACEHOLDER = "Message Karyi · / commands · @ files · !cmd shell · Esc stops · Ctrl+D quits"
AFTER_FIRST_SCREEN = (
    "karyi.agent.host",
    "karyi.cli.chat.feed",
    "karyi.cli.chat.history",
    "karyi.cli.chat.questions",
    "karyi.cli.chat.commands",
)
"""What the chat needs once the runtime is open, imported in the opening thread."""


class ChatApp(PromptKeys):
    """The full-screen chat over one session of `runtime` (`session_id` None: a new one)."""

    TITLE = "karyi"
    CSS = """
    Screen { layout: vertical; }
    #log { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    #queue { height: auto; color: $text-muted; padding: 0 1; display: none; }
    #prompt { dock: bottom; margin-bottom: 1; border: tall $primary; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", "stop", show=False, priority=True),
        Binding("ctrl+d", "eof", "quit", show=False, priority=True),
        Binding("ctrl+c", "interrupt", "quit", show=False, priority=True),
        Binding("shift+tab", "plan_or_act", "plan/act", show=False, priority=True),
        Binding("ctrl+s,ctrl+enter", "steer", "steer", show=False, priority=True),
        Binding("tab", "complete", "complete", show=False, priority=True),
        Binding("down", "completion(1)", show=False),
        Binding("up", "completion(-1)", show=False),
    ]

    host: AgentHost
    runtime: Runtime
    feed: Feed

    def __init__(
        self, runtime: Runtime | Callable[[], Runtime], session_id: str | None = None
    ) -> None:
        """`runtime`, or what opens it: then it is opened after the first screen, in a
        thread (the agent's modules load there), and what is typed meanwhile waits."""
        super().__init__()
        self._opener = runtime if callable(runtime) else lambda: runtime
        self.session_id = session_id
        self.failure: Exception | None = None
        """Why the runtime could not open (the chat then ends; the command says it)."""
        self.live: LiveSession | None = None
        self.log_view = Conversation(id="log")
        self.queue_view = Static(id="queue")
        self.prompt = PromptInput(placeholder=PLACEHOLDER, id="prompt")
        self.completions = CompletionList()
        self.completer: Completer | None = None
        self.status = StatusLine()
        self.early: list[str] | None = []
        """Lines sent before the session opened (None once it has: they are run)."""
        self.queued: list[str] = []
        self.questions: list[PermissionQuestion] = []
        self.stop_after_answer = False
        self.stop_after_call: str | None = None
        self._driving = False
        self._reads = ThreadPoolExecutor(1, thread_name_prefix="karyi-chat-read")
        """Where the session's blocking reads run, so that closing waits for them."""
        self._last_escape = 0.0
        self._last_interrupt = 0.0

    def compose(self) -> ComposeResult:
        """The conversation, the queue, the prompt, the status line."""
        yield self.log_view
        yield self.queue_view
        yield self.completions
        yield self.prompt
        yield self.status

    def on_mount(self) -> None:
        """Draw at once; open the runtime and the session right after the first frame."""
        self.prompt.focus()
        self.status.show()
        self.call_after_refresh(self.run_worker, self._open(), group="open")

    async def _open(self) -> None:
        """The runtime (opened in a thread with the rest of the agent's modules), the
        host and the feed, then the session; the lines typed meanwhile run after it."""
        try:
            self.runtime = await asyncio.to_thread(self._load)
        except Exception as exc:  # a usage error found late: the command reports it
            self.failure = exc
            self.exit(2)
            return
        from karyi.agent.host import AgentHost
        from karyi.cli.chat.feed import Feed

        self.host = AgentHost(self.runtime, ask=self.ask)
        self.runtime.ask_value = self.ask_value
        self.completer = Completer(self.runtime.workspace.root, LOCAL)
        self.prompt.root = self.runtime.workspace.root
        self.feed = Feed(
            self.log_view,
            on_usage=lambda cost: self.status.show(cost=cost),
            on_mode=lambda mode: self.status.show(mode=mode),
        )
        await self.open_session()
        early, self.early = self.early or [], None
        for text in early:
            await self.submit(text)

    def _load(self) -> Runtime:
        import importlib

        from karyi.cli.chat.answer import warm_up

        runtime = self._opener()
        for name in AFTER_FIRST_SCREEN:
            importlib.import_module(name)
        warm_up()
        return runtime

    async def open_session(self) -> None:
        """Load the session (its past turns drawn first) and fill in the status line."""
        from karyi.llm.base import ProviderError

        try:
            self.live = self.host.session(self.session_id)
        except ProviderError as exc:
            self.feed.mount(NoticeLine(Text(f"✗ {exc.message}"), classes="error"))
            return
        self.session_id = self.live.id
        await self.show_history()
        if pinned := self.runtime.settings.pinned_note():  # docs/security.md#managed-settings
            self.feed.mount(NoticeLine(Text(f"🔒 {pinned}"), classes="dim"))
        keep_out_of_collections()
        self.refresh_status()
        self.run_worker(self._find_sandbox(), group="status")
        if self.completer is not None:
            self.run_worker(self.completer.load_files(), group="status")

    async def show_history(self, every: bool = False) -> None:
        """The session's stored turns, the latest (`every`: all); a new session has none."""
        from karyi.cli.chat.history import draw_transcript

        assert self.live is not None
        transcript = await self._read(self.live.transcript)
        draw_transcript(self.feed, transcript, every=every)

    async def _find_sandbox(self) -> None:
        sandboxed = await self._read(lambda: self.runtime.shell.sandboxed)
        self.status.show(sandbox="sandboxed" if sandboxed else "NOT sandboxed")

    def _read(self, read: Callable[[], T]) -> asyncio.Future[T]:
        return asyncio.get_running_loop().run_in_executor(self._reads, read)

    def refresh_status(self) -> None:
        """Model, context used and mode from the live session."""
        if self.live is None:
            return
        used, window = self.host.context_use(self.live)
        busy = "working" if self.live.agent.busy else ""
        if self.queued:
            busy = f"{busy} · {len(self.queued)} queued".strip(" ·")
        self.status.show(
            model=self.live.agent.provider.label,
            context_used=used,
            context_window=window,
            mode=self.live.agent.mode,
            cost=self.live.conversation.cost or None,
            busy=busy,
        )

    # -- sending ---------------------------------------------------------------------

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the prompt: a chat command, `!cmd`, or a message (queued while a turn
        runs, or while the session opens)."""
        if event.input is not self.prompt:
            return
        text = event.value.strip()
        self.prompt.value = ""
        if not text:
            return
        self.completions.show(0, [])
        if self.early is not None and text not in ("/exit", "/quit"):
            self.early.append(text)
            self._show_queue()
            return
        await self.submit(text)

    async def submit(self, text: str) -> None:
        """Run one line the user sent: the chat's own command, or a message."""
        from karyi.cli.chat.commands import run_local

        if await run_local(self, text):
            return
        self.send(text)

    def send(self, text: str) -> None:
        """Run `text` as the next turn: now, or after the turns before it."""
        self.queued.append(text)
        self._show_queue()
        if not self._driving:
            self._driving = True
            self.run_worker(self._drive(), group="turns")

    async def _drive(self) -> None:
        """Run the queued messages one turn each, in order."""
        try:
            while self.queued and self.live is not None:
                text = self.queued.pop(0)
                self._show_queue()
                self.feed.mount(UserMessage(text))
                await self._turn(self.live, text)
        finally:
            self._driving = False
            self.refresh_status()
            keep_out_of_collections()

    async def _turn(self, live: LiveSession, text: str) -> None:
        self.refresh_status()
        try:
            files = self.completer.files if self.completer else []
            context, images = message_parts(text, self.runtime.workspace.root, files)
            if images:
                said = "🖼 " + " · ".join(i.describe() for i in images)
                self.feed.mount(NoticeLine(Text(said), classes="dim"))
            _, result = await self.host.chat(
                live.id, text, context=context, images=images, listener=self.agent_event
            )
        except Exception as exc:  # a picture refused, a model that cannot start: said
            self.feed.mount(NoticeLine(Text(f"✗ {exc}"), classes="error"))
            return
        finally:
            self.feed.end_prose()
            self.stop_after_answer = False
            self.stop_after_call = None
        self.queued[:0] = list(result.unsent)  # steered too late: the next message

    def _show_queue(self) -> None:
        waiting = self.early or (self.queued if self._driving else [])
        lines = [f"⏳ {i}. {t}" for i, t in enumerate(waiting, 1)]
        self.queue_view.update("\n".join(lines))
        self.queue_view.display = bool(lines)
        self.refresh_status()

    # -- questions from the agent ----------------------------------------------------

    async def ask(self, request: ApprovalRequest) -> Decision:
        """A call's permission, asked in the conversation; Esc never throws it away."""
        from karyi.cli.chat.questions import PermissionQuestion

        question = PermissionQuestion(request)
        self.questions.append(question)
        self.feed.end_prose()
        self.feed.mount(question)
        question.focus()
        try:
            decision = await question.answer
        finally:
            self.questions.remove(question)
            await question.remove()
            self.prompt.focus()
        card = self.feed.cards.get(request.call.id)
        if card is not None:
            card.set_status("running" if decision.allow else "rejected", detail=question.summary)
        if self.stop_after_answer and not self.questions:
            self.stop_after_call = request.call.id  # Esc came: stop once this call ran
            if not decision.allow and self.live is not None:
                self.call_later(self.live.agent.cancel)
        return decision

    def agent_event(self, event: Event) -> None:
        """Each event of a turn: drawn; the call Esc waited for done, the turn stops."""
        from karyi.agent.events import ToolDone

        self.feed(event)
        if isinstance(event, ToolDone) and event.call.id == self.stop_after_call:
            self.stop_after_call = None
            if self.live is not None:
                self.live.agent.cancel()

    async def ask_value(self, request: ValueRequest) -> ValueAnswer | None:
        """`get_value`: a masked field; the value is never drawn."""
        from karyi.cli.chat.questions import SecretQuestion

        question = SecretQuestion(request)
        self.feed.mount(question)
        try:
            return await question.answer
        finally:
            await question.remove()
            self.prompt.focus()

    # -- keys ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While a picker is open, its own keys win over the chat's (Esc closes it)."""
        picking = len(self.screen_stack) > 1
        return not (picking and action in ("escape", "plan_or_act", "steer", "complete"))

    def action_escape(self) -> None:
        """Esc: stop the running turn (a waiting proposal is kept until answered); when
        idle, Esc Esc opens rewind."""
        now, last = time.monotonic(), self._last_escape
        self._last_escape = now
        busy = self.live is not None and self.live.agent.busy
        if self.questions:
            self._last_escape = 0.0
            self.stop_after_answer = True
            self.questions[0].focus()
            self.notify("A proposal waits for your answer (n rejects it); the turn stops after.")
            return
        if busy and self.live is not None:
            self._last_escape = 0.0  # this Esc stopped the turn: it starts no Esc Esc
            self.live.agent.cancel()
            self.queued.clear()
            self._show_queue()
            return
        if now - last < DOUBLE_PRESS:
            from karyi.cli.chat.pickers import open_rewind

            self.run_worker(open_rewind(self), group="rewind")

    def action_plan_or_act(self) -> None:
        """Shift+Tab: plan ↔ act (between turns)."""
        if self.live is None:
            return
        if self.live.agent.busy:
            self.notify("The mode changes between turns: wait or press Esc.")
            return
        self.live.agent.set_mode("act" if self.live.agent.mode == "plan" else "plan")
        self.refresh_status()

    def action_steer(self) -> None:
        """Ctrl+S (or Ctrl+Enter where the terminal tells it): the prompt's text goes
        into the running turn, read at its next tool boundary."""
        text = self.prompt.value.strip()
        if not text or self.live is None:
            return
        from karyi.agent.host import NoTurnRunning

        try:
            self.host.steer(self.live.id, text)
        except NoTurnRunning:
            self.notify("No turn is running: Enter sends it as a message.")
            return
        self.prompt.value = ""
        self.notify("Sent into the running turn: the model reads it after its current calls.")

    def on_key(self, event: events.Key) -> None:
        """Keys no widget took: printable ones go to the prompt."""
        if event.is_printable and self.focused is not self.prompt and not self.questions:
            self.prompt.focus()

    async def on_unmount(self) -> None:
        """Stop every turn and release the model and the terminals."""
        # a read still running in its thread (the history, say) must not meet a closed store
        await asyncio.to_thread(self._reads.shutdown, wait=True, cancel_futures=True)
        if hasattr(self, "host"):
            await self.host.close()
