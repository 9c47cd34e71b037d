"""Live sessions for long-running front ends (LSP, gateway, ACP).

A front end asks the host to run a turn in a session and subscribes to its events; a
call that needs permission becomes a *pending approval* that the front end answers
later (a `karyi/confirmTool` request, a follow-up HTTP request, a dialog), or, for
clients without their own UI, through an `ask` callback. One turn at a time per
session; any number of sessions at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from karyi.agent.events import Event, EventStream, FileChanged, Listener, ValueRequested
from karyi.agent.models import ModelCatalog
from karyi.agent.review.approval import ApprovalRequest, Decision
from karyi.agent.runtime import Runtime
from karyi.agent.session.compaction import estimate_tokens
from karyi.agent.session.conversation import Conversation
from karyi.agent.session.transcript import Transcript
from karyi.agent.subagents import Subagents
from karyi.agent.turn.loop import Agent
from karyi.agent.turn.spec import AgentSpec, TurnResult
from karyi.agent.turn.timeline import transcript_of
from karyi.core.images import Image
from karyi.llm.base import Provider, ProviderError
from karyi.llm.factory import create_provider
from karyi.llm.unconfigured import UnconfiguredProvider
from karyi.secrets.request import ValueAnswer, ValueRequest
from karyi.settings import Settings
from karyi.workspace.editor import PlannedWrite

log = logging.getLogger(__name__)

Ask = Callable[[ApprovalRequest], Awaitable[Decision]]

MAX_IDLE_SESSIONS = 8
"""Idle sessions kept loaded; older ones are unloaded (their model client and terminal
closed) and load again from the store when used (docs/architecture.md)."""
MAX_APPLIED = 200
"""Changes a session remembers for `karyi/fileDiffs` (the newest)."""


class NotPending(LookupError):
    """An answer for a call that is not waiting for one."""


class SessionBusy(RuntimeError):
    """A turn was started in a session that is already running one."""


class NoTurnRunning(RuntimeError):
    """A message was sent into a session's running turn, and none runs."""


@dataclass
class PendingApproval:
    """A call waiting for the user, and the future its answer resolves."""

    session_id: str
    request: ApprovalRequest
    future: asyncio.Future[Decision]


@dataclass
class LiveSession:
    """One session the host has loaded: its agent, event stream and pending approvals."""

    conversation: Conversation
    agent: Agent
    events: EventStream
    pending: dict[str, PendingApproval] = field(default_factory=dict)
    values: dict[str, asyncio.Future[ValueAnswer | None]] = field(default_factory=dict)
    applied: list[tuple[str, tuple[PlannedWrite, ...]]] = field(default_factory=list)
    """(call id, files) of every change the session's calls made, oldest first."""
    turns: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held by the running turn: a message sent meanwhile waits its turn, in order."""

    @property
    def id(self) -> str:
        """The session id."""
        return self.conversation.id

    def transcript(self) -> Transcript:
        """The session as the user saw it, read from the store with its dialect (an
        unsaved session has none: nothing to show again)."""
        return transcript_of(self.agent)


class AgentHost:
    """Loads sessions on demand and runs their turns.

    `provider_factory` and `spec_factory` replace the runtime's model and agent for this
    host's sessions (the gateway's agent has no command tools while its shell is off).
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        ask: Ask | None = None,
        provider_factory: Callable[[], Provider] | None = None,
        spec_factory: Callable[[], AgentSpec] | None = None,
        model_factory: Callable[[Settings], Provider] | None = None,
        catalog: ModelCatalog | None = None,
    ) -> None:
        self.runtime = runtime
        self.ask = ask
        self._provider_factory = provider_factory or runtime.provider
        self._model_factory = model_factory or (
            lambda settings: create_provider(settings, runtime.model_env(settings))
        )
        self.catalog = catalog or ModelCatalog()
        """The models the editor's picker offers (agent/models.py); hosts may share one."""
        self._spec_factory = spec_factory or runtime.spec
        self._sessions: dict[str, LiveSession] = {}
        """Loaded sessions, least recently used first."""
        self._closing: set[asyncio.Task[None]] = set()

    def session(self, session_id: str | None = None, *, new_id: str | None = None) -> LiveSession:
        """A loaded session, a stored one loaded now, or a new one (id None; its id is
        `new_id` when given, one the front end already told its client)."""
        if session_id and session_id in self._sessions:
            loaded = self._sessions.pop(session_id)
            self._sessions[session_id] = loaded  # now the most recently used
            return loaded
        conversation = self.runtime.conversation(session_id, new_id=new_id)
        try:
            provider = self._provider_of(conversation)
        except ProviderError as exc:
            if session_id is None or exc.kind != "config":
                if session_id is None:
                    self._drop_new(conversation)
                raise
            # its history is readable without a model; a turn says what to set
            provider = UnconfiguredProvider(self.runtime.settings.model, exc, key_missing=False)
        except Exception:
            if session_id is None:
                self._drop_new(conversation)
            raise
        events = EventStream()
        live: LiveSession
        agent = self.runtime.agent(
            conversation,
            approver=lambda request: self._approve(live, request),
            provider=provider,
            events=events,
            spec=self._spec_factory(),
        )
        live = LiveSession(conversation, agent, events)

        def collect(event: Event) -> None:
            if isinstance(event, FileChanged):
                live.applied.append((event.call.id, event.files))
                del live.applied[:-MAX_APPLIED]

        events.subscribe(collect)
        self._sessions[live.id] = live
        self._unload_idle()
        return live

    @staticmethod
    def _drop_new(conversation: Conversation) -> None:
        if conversation.store is not None:
            conversation.store.delete(conversation.id)  # no empty session per failed try

    def require_model(self, live: LiveSession) -> None:
        """Give a session loaded without a model one now, or raise why there is none."""
        if isinstance(live.agent.provider, UnconfiguredProvider):
            live.agent.provider = self._provider_of(live.conversation)

    def _unload_idle(self) -> None:
        """Unload the least recently used idle sessions beyond MAX_IDLE_SESSIONS, so a
        long-running server holds a bounded number of model clients and terminals."""
        idle = [
            sid
            for sid, live in self._sessions.items()
            if not live.agent.busy and not live.pending and not live.values
        ]
        for sid in idle[: max(0, len(idle) - MAX_IDLE_SESSIONS)]:
            live = self._sessions.pop(sid)
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                continue
            task = loop.create_task(self._release(live))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def _release(self, live: LiveSession) -> None:
        await live.agent.provider.aclose()
        await self.runtime.close_session(live.id)

    def _provider_of(self, conversation: Conversation) -> Provider:
        """The session's own model when it chose one and it can still be made (settings
        change), else the settings' model."""
        if conversation.model_choices:
            try:
                return self._model_factory(self.runtime.settings_for(conversation.model_choices))
            except ProviderError as exc:
                log.warning("session %s: its model cannot be used (%s)", conversation.id, exc)
        return self._provider_factory()

    def choose(self, session_id: str, **changes: Any) -> Provider:
        """Switch the session's model settings (`model`, `llm`) from its next turn, e.g.
        the model picked in an editor. SessionBusy during a turn; ProviderError `config`
        when that model cannot be made (nothing changes then)."""
        live = self.session(session_id)
        if live.agent.busy:
            raise SessionBusy(f"session {live.id} is running a turn: wait for it or cancel it")
        merged = {**live.conversation.model_choices, **changes}
        provider = self._model_factory(self.runtime.settings_for(merged))
        old, live.agent.provider = live.agent.provider, provider
        if isinstance(live.agent.ctx.subagents, Subagents):
            live.agent.ctx.subagents.provider = provider
        live.conversation.model_choices = merged
        live.conversation.save_state()  # a resumed session keeps its model
        task = asyncio.get_running_loop().create_task(old.aclose())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)
        return provider

    def choices(self, session_id: str) -> dict[str, Any]:
        """The session's own model settings (empty: the settings' model)."""
        return dict(self.session(session_id).conversation.model_choices)

    def apply_settings(self, settings: Settings) -> None:
        """New settings: idle sessions reload with them on next use; busy ones finish first."""
        self.runtime.apply(settings)
        for sid, live in list(self._sessions.items()):
            if not live.agent.busy:
                del self._sessions[sid]

    def loaded(self) -> list[LiveSession]:
        """Sessions in memory."""
        return list(self._sessions.values())

    async def chat(
        self,
        session_id: str | None,
        text: str,
        *,
        context: str = "",
        images: Sequence[Image] = (),
        listener: Listener | None = None,
    ) -> tuple[LiveSession, TurnResult]:
        """Run one turn; `listener` sees every event of it. `images` are checked pictures
        (karyi.core.images) sent with `text` (docs/images.md)."""
        live = self.session(session_id)
        self.require_model(live)
        async with live.turns:  # a message sent during a turn is the next one
            return live, await self._turn(live, text, context, images, listener)

    def steer(self, session_id: str, text: str) -> None:
        """Send `text` into the session's running turn: the model reads it at the next
        tool boundary (agent/turn/steering.py). NoTurnRunning when the session is idle."""
        live = self._sessions.get(session_id)
        if live is None or not live.agent.busy:
            raise NoTurnRunning(
                f"no turn is running in session {session_id}: send it as a new message"
            )
        live.agent.steers.add(text)

    async def _turn(
        self,
        live: LiveSession,
        text: str,
        context: str,
        images: Sequence[Image],
        listener: Listener | None,
    ) -> TurnResult:
        """One turn of `live`, and what was sent into it that no tool boundary took."""
        unsubscribe = live.events.subscribe(listener) if listener else None
        try:
            result = await live.agent.run(text, context=context, images=images)
        finally:
            unsent = tuple(live.agent.steers.take_rest())
            if unsubscribe is not None:
                unsubscribe()
            for pending in list(live.pending.values()):
                if not pending.future.done():
                    pending.future.cancel()
            live.pending.clear()
            for waiting in list(live.values.values()):
                if not waiting.done():
                    waiting.cancel()
        return dataclasses.replace(result, unsent=unsent)

    async def set_model(self, session_id: str | None, model: str) -> LiveSession:
        """Switch a session (a new one without id) to `model` from its next turn on
        (docs/models.md#picker): `choose` with the model, as ACP's config option does. A
        model that cannot be used (unknown provider, no key) raises ProviderError
        `config` and changes nothing; SessionBusy during a turn."""
        if session_id is None:  # no new session for a model that cannot be used
            probe = self._model_factory(self.runtime.settings_for({"model": model}))
            await probe.aclose()
        live = self.session(session_id)
        self.choose(live.id, model=model)
        return live

    def context_use(self, live: LiveSession) -> tuple[int, int]:
        """(tokens the conversation takes, by the compaction estimate; the model's window)."""
        return estimate_tokens(live.conversation.messages), live.agent.provider.context_window

    def require(self, session_id: str) -> None:
        """SessionNotFound unless the session is loaded or stored."""
        if session_id not in self._sessions:
            self.runtime.store.require(session_id)

    def cancel(self, session_id: str) -> bool:
        """Cancel the session's running turn; False if it was idle."""
        live = self._sessions.get(session_id)
        return live.agent.cancel() if live else False

    async def _approve(self, live: LiveSession, request: ApprovalRequest) -> Decision:
        if self.ask is not None:
            return await self.ask(request)
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        live.pending[request.call.id] = PendingApproval(live.id, request, future)
        try:
            return await future
        finally:
            live.pending.pop(request.call.id, None)

    def answer(self, session_id: str, call_id: str, decision: Decision) -> None:
        """Resolve a pending approval (NotPending when there is none to resolve)."""
        live = self._sessions.get(session_id)
        if live is None:
            raise NotPending(f"session {session_id!r} is not loaded or has no pending calls")
        pending = live.pending.get(call_id)
        if pending is None or pending.future.done():
            waiting = ", ".join(live.pending) or "none"
            raise NotPending(
                f"call {call_id!r} in session {session_id} is not waiting for permission "
                f"(waiting: {waiting})"
            )
        pending.future.set_result(decision)

    async def ask_value(self, request: ValueRequest) -> ValueAnswer | None:
        """`get_value` for a front end with its own UI: announce, then wait for
        `provide_value`. None (refused) when the session is not live."""
        live = self._sessions.get(request.session_id)
        if live is None:
            return None
        future: asyncio.Future[ValueAnswer | None] = asyncio.get_running_loop().create_future()
        live.values[request.key] = future
        live.events.emit(
            ValueRequested(
                request.call_id, request.key, request.reason, request.note, request.exists
            )
        )
        try:
            return await future
        finally:
            live.values.pop(request.key, None)

    def provide_value(self, session_id: str, key: str, answer: ValueAnswer | None) -> None:
        """Answer a waiting `get_value` (None: the user refused)."""
        live = self._sessions.get(session_id)
        future = live.values.get(key) if live else None
        if live is None or future is None or future.done():
            waiting = ", ".join(live.values) if live else ""
            raise NotPending(
                f"no value {key!r} is being asked for in session {session_id}"
                + (f" (waiting: {waiting})" if waiting else "")
            )
        future.set_result(answer)

    def pending(self, session_id: str) -> list[PendingApproval]:
        """The session's calls waiting for the user, in call order."""
        live = self._sessions.get(session_id)
        return list(live.pending.values()) if live else []

    def forget(self, session_id: str) -> None:
        """Unload a session (after it was deleted); cancels its turn."""
        live = self._sessions.pop(session_id, None)
        if live is not None:
            live.agent.cancel()

    async def close(self) -> None:
        """Cancel every turn and release providers and the store."""
        tasks = []
        for live in self._sessions.values():
            live.agent.cancel()
            tasks.append(live.agent.provider.aclose())
        await asyncio.gather(*tasks, return_exceptions=True)
        self._sessions.clear()
        await self.runtime.aclose()
