"""Sessions whose runtime is still opening. `session/new` answers with the session's id
at once and opens its runtime in the background; every later request for the session
waits here until it is open, and gets the precise error when it could not be opened
(docs/acp.md#start-up)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from acp import RequestError

from karyi.acp.errors import could_not_open

if TYPE_CHECKING:
    from karyi.acp.session import AcpSession

log = logging.getLogger(__name__)


class Openings:
    """The background openings of one connection's sessions, by session id."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[AcpSession]] = {}

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._tasks

    def start(self, session_id: str, job: Coroutine[Any, Any, AcpSession]) -> None:
        """Open a session in the background; a failed opening is kept for `wait` to tell."""
        task = asyncio.ensure_future(job)
        self._tasks[session_id] = task
        task.add_done_callback(lambda done: self._settled(session_id, done))

    def _settled(self, session_id: str, task: asyncio.Task[AcpSession]) -> None:
        if task.cancelled():
            self._tasks.pop(session_id, None)
        elif task.exception() is not None:  # kept: every request for it says why
            log.warning("opening session %s failed: %s", session_id, task.exception())
        elif self._tasks.get(session_id) is task:
            del self._tasks[session_id]  # the agent holds the open session now

    async def wait(self, session_id: str) -> AcpSession | None:
        """The session once open (None when it is not being opened); RequestError saying
        why when its opening failed."""
        task = self._tasks.get(session_id)
        if task is None:
            return None
        try:
            return await asyncio.shield(task)
        except RequestError:
            raise
        except Exception as exc:
            raise could_not_open(session_id, exc) from None

    def forget(self, session_id: str) -> None:
        """Drop a failed opening (the session was closed or deleted)."""
        task = self._tasks.get(session_id)
        if task is not None and task.done():
            del self._tasks[session_id]

    async def settle(self) -> None:
        """Wait for every opening still running (at the end of the connection, and at
        `logout`, which signs out sessions still opening too)."""
        for task in list(self._tasks.values()):
            with contextlib.suppress(Exception):
                await asyncio.shield(task)
