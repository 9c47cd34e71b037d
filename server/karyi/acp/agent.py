"""Karyi as an ACP agent: the methods an ACP client calls (`initialize`, `session/new`,
`session/load`, `session/prompt`, `session/cancel`), each a short translation onto
`karyi.agent` (docs/acp.md). The SDK's router validates every request against the
schema (a malformed one gets -32602 naming the field); what the schema cannot say
(a relative `cwd`, an unknown session) is checked here with the same error.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SetSessionModeResponse,
)

from karyi import __version__
from karyi.acp.editor import AcpEditor
from karyi.acp.mcp import ClientServer, settings_entries
from karyi.acp.prompts import Block
from karyi.acp.replay import history
from karyi.acp.session import AcpSession, session_modes
from karyi.acp.terminals import TerminalMirror
from karyi.agent.host import AgentHost, SessionBusy
from karyi.agent.prompting.modes import UnknownMode
from karyi.agent.runtime import Runtime
from karyi.agent.session.store import SessionNotFound
from karyi.llm.base import ProviderError
from karyi.settings import load_settings

log = logging.getLogger(__name__)

SUPPORTED_VERSIONS = frozenset({PROTOCOL_VERSION})


def invalid(field: str, message: str) -> RequestError:
    """-32602 naming the field, as ACP specifies for bad parameters."""
    return RequestError.invalid_params({"field": field, "message": message})


class KaryiAgent:
    """The ACP agent: one connection, any number of sessions."""

    def __init__(self, flags: Mapping[str, Any] | None = None) -> None:
        self.flags = dict(flags or {})
        self.client: Client | None = None
        self.caps = ClientCapabilities()
        self.sessions: dict[str, AcpSession] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Client) -> None:
        """The SDK hands over the connection to the client."""
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        """Negotiate the version (the client's if supported, else our latest) and say
        what Karyi can do: load sessions, embedded context (no images: the model reads
        text), MCP over stdio, HTTP and SSE."""
        self.caps = client_capabilities or ClientCapabilities()
        version = protocol_version if protocol_version in SUPPORTED_VERSIONS else PROTOCOL_VERSION
        return InitializeResponse(
            protocol_version=version,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
            ),
            agent_info=Implementation(name="karyi", title="Karyi", version=__version__),
            auth_methods=[],
        )

    async def new_session(
        self,
        cwd: str,
        mcp_servers: list[ClientServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        """A new session in the workspace `cwd`."""
        session = self._open(cwd, mcp_servers or [], additional_directories or [], None)
        self._later(session.announce())  # once the client knows the session's id
        return NewSessionResponse(session_id=session.id, modes=session_modes(session.mode))

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[ClientServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        """A stored session of the workspace `cwd`: its history is sent as updates first,
        then the answer; the next prompt continues it."""
        old = self.sessions.pop(session_id, None)
        if old is not None:
            await old.close()
        session = self._open(cwd, mcp_servers or [], additional_directories or [], session_id)
        store = session.runtime.store
        updates = history(
            store.messages(session.id), store.calls(session.id), session.live.agent.spec
        )
        await session.send(updates)
        self._later(session.announce())
        return LoadSessionResponse(modes=session_modes(session.mode))

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        """`session/set_mode`: plan or act (docs/workflow.md#plan-mode), between turns."""
        session = self._session(session_id)
        try:
            await session.set_mode(mode_id)
        except UnknownMode as exc:
            raise invalid("modeId", str(exc)) from None
        except SessionBusy as exc:
            raise RequestError.invalid_request(
                {"sessionId": session_id, "message": str(exc)}
            ) from None
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Block], **kwargs: Any) -> PromptResponse:
        """One turn of the session's agent; the answer's stop reason says how it ended."""
        session = self._session(session_id)
        try:
            return await session.prompt(prompt)
        except SessionBusy as exc:
            raise RequestError.invalid_request(
                {"sessionId": session_id, "message": str(exc)}
            ) from None
        except ProviderError as exc:  # no usable model: the setting to fix, not a traceback
            raise RequestError.internal_error(
                {"message": f"model provider: {exc.message}", "kind": exc.kind}
            ) from None

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """`session/cancel` (a notification: an unknown session is only logged)."""
        session = self.sessions.get(session_id)
        if session is None:
            log.warning("session/cancel for unknown session %s", session_id)
            return
        session.cancel()

    async def close(self) -> None:
        """Close every session (and the processes their runtimes started)."""
        sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            try:
                await session.close()
            except Exception:
                log.exception("closing session %s failed", session.id)

    def _later(self, job: Coroutine[Any, Any, None]) -> None:
        """Run `job` after the current answer was queued (the SDK sends in order)."""
        task = asyncio.ensure_future(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise invalid(
                "sessionId",
                f"no session {session_id!r} on this connection: create one with session/new "
                "or load it with session/load",
            )
        return session

    def _open(
        self, cwd: str, servers: list[ClientServer], extra: list[str], session_id: str | None
    ) -> AcpSession:
        root = Path(cwd)
        if not root.is_absolute():
            raise invalid("cwd", f"{cwd!r} is not an absolute path")
        if not root.is_dir():
            raise invalid("cwd", f"{cwd!r} is not a directory")
        for path in extra:
            if not Path(path).is_absolute():
                raise invalid("additionalDirectories", f"{path!r} is not an absolute path")
        if self.client is None:
            raise RequestError.internal_error({"message": "no client connection"})
        runtime = self._runtime(root.resolve(), servers, extra)
        try:
            editor = self._editor(runtime)
            host = AgentHost(runtime)
            live = host.session(session_id)
        except SessionNotFound:
            runtime.close()
            raise invalid("sessionId", f"no stored session {session_id!r} in {cwd}") from None
        except Exception as exc:
            runtime.close()
            raise RequestError.internal_error(
                {"message": f"karyi could not start: {exc}"}
            ) from None
        if editor is not None:
            editor.session_id = live.id
        terminals = None
        if self.caps.terminal:
            terminals = TerminalMirror(self.client, runtime.workspace.root, live.id)
        session = AcpSession(self.client, runtime, host, live, editor, terminals)
        self.sessions[session.id] = session
        return session

    def _runtime(self, root: Path, servers: list[ClientServer], extra: list[str]) -> Runtime:
        settings = load_settings(root, flags=self.flags)
        for warning in settings.warnings:
            log.warning("karyi settings: %s", warning)
        roots = settings.allowed_roots + [p for p in extra if p not in settings.allowed_roots]
        mcp = {**settings.mcp_servers, **settings_entries(servers)}
        return Runtime.open(root, settings.with_values(allowedRoots=roots, mcpServers=mcp))

    def _editor(self, runtime: Runtime) -> AcpEditor | None:
        fs = self.caps.fs
        reads, writes = bool(fs and fs.read_text_file), bool(fs and fs.write_text_file)
        if not (reads or writes) or self.client is None:
            return None
        editor = AcpEditor(self.client, runtime.workspace.documents, reads=reads, writes=writes)
        runtime.editor = editor
        return editor
