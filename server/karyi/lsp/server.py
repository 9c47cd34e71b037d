"""The Karyi language server's type and state: a pygls server whose state is one AgentHost.

Every feature module's handlers take this server as their first argument; the table in
`features.py` registers them. This module imports no feature, so features can import it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from karyi import __version__
from karyi.lsp.errors import ServerNotReady
from karyi.lsp.protocol import CURRENT_REQUEST, KaryiProtocol

if TYPE_CHECKING:
    from karyi.agent.background.manager import TaskManager
    from karyi.agent.host import AgentHost

log = logging.getLogger(__name__)


class KaryiServer(LanguageServer):
    """The server and what `initialize` set up: the agent host and the client's abilities."""

    protocol: KaryiProtocol

    def __init__(self) -> None:
        super().__init__(
            "karyi",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=KaryiProtocol,
        )
        self.host: AgentHost | None = None
        self.background: set[asyncio.Task[Any]] = set()
        self.starting: asyncio.Task[None] | None = None
        """Builds the agent host after `initialize` answered (see lifecycle.py)."""
        self.build: Callable[[], Coroutine[Any, Any, None]] | None = None
        """What `initialize` left to do; started by `initialized` or the first request."""
        self.startup_error = ""
        self.ui = False  # the client declared Karyi's custom UI (initializationOptions.karyi.ui)
        self.editor_diagnostics = False  # it answers karyi/diagnostics (lsp/diagnostics.py)
        self.editor_navigation = False  # it answers karyi/navigate (lsp/navigation.py)
        self.init_options: dict[str, Any] = {}
        self.task_manager: TaskManager | None = None
        """Background tasks of the workspace (lsp/background_tasks.py), made on first use."""
        self.task_recovery: asyncio.Task[None] | None = None
        """Marks the tasks a killed server left running interrupted, after `initialized`."""
        self.current_session: str | None = None
        """The session task commands continue (lsp/conversation.py)."""
        self.review_findings: dict[str, list[types.Diagnostic]] = {}
        """The findings of the last code review published per document, as they have
        followed the user's edits (lsp/code_review.py)."""
        self.buffers_moved = asyncio.Event()
        """Set (and replaced) whenever a document is opened, changed or closed: what a
        request that needs a buffer's newer version waits for (lsp/documents.py)."""

    async def ready(self) -> None:
        """Wait until the agent host is built. It is built after the client has the
        `initialize` result (on `initialized`, or the first request if that comes first),
        so the editor gets the server's capabilities without waiting for the agent stack."""
        if self.starting is None and self.build is not None:
            self.starting = self.spawn(self.build())
        if self.starting is not None and not self.starting.done():
            await asyncio.shield(self.starting)

    def require_host(self) -> AgentHost:
        """The agent host, or a JSON-RPC error when `initialize` has not run (or failed)."""
        if self.host is None:
            why = self.startup_error or "send initialize first"
            raise ServerNotReady(f"karyi: the server is not initialized ({why})")
        return self.host

    def spawn(self, job: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run `job` in the background, keeping a reference until it is done."""
        task = asyncio.ensure_future(job)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        return task

    def turn_request(self, session_id: str) -> Callable[[], None]:
        """Mark the running request as the turn of `session_id`, so `$/cancelRequest` on
        it cancels the turn (protocol.py); the returned function unmarks it."""
        msg_id = CURRENT_REQUEST.get()
        if msg_id is None:
            return lambda: None
        turns = self.protocol.turns
        turns[msg_id] = session_id

        def done() -> None:
            turns.pop(msg_id, None)

        return done

    def notify(self, method: str, params: Any) -> None:
        """Send a notification to the client."""
        self.protocol.notify(method, params)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """A `window/logMessage` the client shows in its output/log."""
        self.window_log_message(types.LogMessageParams(type=kind, message=message))
