"""Turns that outlive the request that started them.

A turn runs as its own task. A response follows it: it shows the events not shown yet
and ends when the turn ends or pauses on a permission (a call waiting for the user).
The client answers the pause with a new request, whose response follows the same turn
from where the last one stopped, so no event is lost or shown twice. One turn at a time
per session. A call left waiting longer than `gateway.permissionTimeoutSeconds` (a
client that went away) cancels its turn, so the session and its terminal are freed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from karyi.agent.events import Error, Event, Notice, TurnStarted
from karyi.agent.host import AgentHost, LiveSession, PendingApproval
from karyi.agent.turn.spec import TurnResult

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Paused:
    """The turn waits for answers to these calls."""

    pending: list[PendingApproval]


@dataclass(frozen=True)
class Finished:
    """The turn ended (`result` None: it failed inside; `crash` says how)."""

    result: TurnResult | None
    crash: str = ""


@dataclass(frozen=True)
class Shown:
    """One event of the turn with its number (1-based: the SSE id)."""

    id: int
    event: Event


Step = Shown | Paused | Finished


class Turn:
    """One running turn: the events so far, and how far responses have shown them."""

    def __init__(self, session_id: str, live: LiveSession) -> None:
        self.session_id = session_id
        self.live = live
        self.events: list[Event] = []
        self.shown = 0
        self.turn_id = ""
        self.failure: Error | None = None
        self.task: asyncio.Task[tuple[LiveSession, TurnResult]] | None = None
        self._signal: asyncio.Future[None] | None = None

    @property
    def store_id(self) -> str:
        """The stored session's id."""
        return self.live.id

    def on_event(self, event: Event) -> None:
        """The turn's listener: keep the event and wake whoever follows."""
        if isinstance(event, TurnStarted):
            self.turn_id = event.turn_id
        elif isinstance(event, Error):
            self.failure = event
        self.events.append(event)
        self.wake()

    def wake(self) -> None:
        """Something changed: resolve the current signal."""
        if self._signal is not None and not self._signal.done():
            self._signal.set_result(None)
        self._signal = None

    def signal(self) -> asyncio.Future[None]:
        """A future resolved at the next change (taken before looking, so none is missed)."""
        if self._signal is None:
            self._signal = asyncio.get_running_loop().create_future()
        return self._signal

    def pending(self) -> list[PendingApproval]:
        """Calls waiting for an answer that has not been given yet."""
        return [p for p in self.live.pending.values() if not p.future.done()]

    def ended(self) -> Finished | None:
        """How the turn ended, or None while it runs."""
        task = self.task
        if task is None or not task.done():
            return None
        if task.cancelled():
            return Finished(None, "the turn's task was cancelled (the gateway is stopping)")
        exc = task.exception()
        if exc is not None:
            return Finished(None, f"{type(exc).__name__}: {exc}")
        return Finished(task.result()[1])

    async def follow(self, after: int | None = None) -> AsyncIterator[Step]:
        """The events after number `after` (default: those no response has shown yet),
        then `Finished` or `Paused` (and stop). Each response keeps its own position, so
        a stale response of a dropped connection takes nothing from a reconnected one."""
        pos = self.shown if after is None else max(0, min(after, len(self.events)))
        while True:
            changed = self.signal()
            while pos < len(self.events):
                event = self.events[pos]
                pos += 1
                self.shown = max(self.shown, pos)
                yield Shown(pos, event)
            if (end := self.ended()) is not None:
                yield end
                return
            if pending := self.pending():
                yield Paused(pending)
                return
            # shielded: a response cancelled by its client's disconnect must not cancel
            # the future every other follower and the pause watcher wait on
            await asyncio.shield(changed)

    async def expire_pauses(self, limit: float, cancel: Callable[[], object]) -> None:
        """Cancel the turn once a call has waited `limit` seconds for its answer."""
        loop = asyncio.get_running_loop()
        since: dict[str, float] = {}
        while self.ended() is None:
            changed = self.signal()
            now = loop.time()
            since = {p.request.call.id: since.get(p.request.call.id, now) for p in self.pending()}
            if not since:
                await asyncio.shield(changed)
                continue
            oldest = min(since, key=since.__getitem__)
            left = since[oldest] + limit - now
            if left <= 0:
                message = (
                    f"no answer to the permission request for {oldest} within {limit:g} s: "
                    "the turn was cancelled"
                )
                log.info("session %s: %s", self.session_id, message)
                self.on_event(Notice("permission_timeout", message))
                cancel()
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(changed), left)

    async def outcome(self, after: int | None = None) -> Finished | Paused:
        """Follow without showing events: how this response ends."""
        async for step in self.follow(after):
            if isinstance(step, Finished | Paused):
                return step
        raise AssertionError("follow() always ends with Finished or Paused")


class TurnHub:
    """The running turn of each session."""

    def __init__(self, host: AgentHost, permission_timeout: float | None = None) -> None:
        self.host = host
        self.permission_timeout = permission_timeout
        self._turns: dict[str, Turn] = {}
        self._last: dict[str, Turn] = {}
        self._watchers: set[asyncio.Task[None]] = set()

    def latest(self, store_id: str) -> Turn | None:
        """The session's running turn, else the last one that ended (while loaded)."""
        return self._turns.get(store_id) or self._last.get(store_id)

    def running(self, store_id: str) -> Turn | None:
        """The session's turn while it runs."""
        turn = self._turns.get(store_id)
        return turn if turn is not None and turn.ended() is None else None

    def start(self, session_id: str, live: LiveSession, text: str) -> Turn:
        """Start a turn now (the caller checked the session is idle)."""
        turn = Turn(session_id, live)
        self._turns[live.id] = turn
        task = asyncio.ensure_future(self.host.chat(live.id, text, listener=turn.on_event))
        turn.task = task

        def done(_: object) -> None:
            if self._turns.get(live.id) is turn:
                del self._turns[live.id]
            self._last[live.id] = turn
            if not task.cancelled() and (exc := task.exception()) is not None:
                log.error("turn in session %s failed: %r", session_id, exc, exc_info=exc)
            turn.wake()

        task.add_done_callback(done)
        if self.permission_timeout is not None:
            watcher = asyncio.ensure_future(
                turn.expire_pauses(self.permission_timeout, lambda: self.host.cancel(live.id))
            )
            self._watchers.add(watcher)
            watcher.add_done_callback(self._watchers.discard)
        return turn

    def forget(self, store_id: str) -> None:
        """Drop the session's ended turn (the session was unloaded)."""
        self._last.pop(store_id, None)

    def all(self) -> list[Turn]:
        """Every running turn."""
        return list(self._turns.values())

    async def close(self) -> None:
        """Cancel every turn and wait for them to stop."""
        turns = list(self._turns.values())
        for turn in turns:
            self.host.cancel(turn.store_id)
        tasks = [t.task for t in turns if t.task is not None]
        await asyncio.gather(*tasks, return_exceptions=True)
        for watcher in list(self._watchers):
            watcher.cancel()
        await asyncio.gather(*self._watchers, return_exceptions=True)
