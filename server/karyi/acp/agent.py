"""Karyi as an ACP agent: the methods an ACP client calls (`initialize`, `session/new`,
`session/load`, `session/prompt`, `session/cancel`), each a short translation onto
`karyi.agent` (docs/acp.md). The SDK's router validates every request against the
schema (a malformed one gets -32602 naming the field); what the schema cannot say
(a relative `cwd`, an unknown session) is checked here with the same error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import RequestError, update_agent_message_text
from acp.interfaces import Client
from acp.schema import (
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    DeleteSessionResponse,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    LogoutResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from karyi.acp.capabilities import (
    KEY_METHOD,
    LOGIN_METHOD,
    initialize_response,
)
from karyi.acp.errors import invalid
from karyi.acp.mcp import ClientServer
from karyi.acp.opening import Openings
from karyi.acp.prompts import Block
from karyi.acp.session_modes import mode_option, session_modes
from karyi.acp.stack import agent_stack
from karyi.acp.where import Where, checked_where
from karyi.agent.prompting.mode_names import ACT
from karyi.agent.session.ids import new_session_id

if TYPE_CHECKING:
    from karyi.acp.builder import Wiring
    from karyi.acp.session import AcpSession
    from karyi.agent.models import ModelCatalog

log = logging.getLogger(__name__)


class KaryiAgent:
    """The ACP agent: one connection, any number of sessions."""

    def __init__(self, flags: Mapping[str, Any] | None = None) -> None:

        self.flags = dict(flags or {})
        self.client: Client | None = None
        self.caps = ClientCapabilities()
        self.sessions: dict[str, AcpSession] = {}
        self.roots: list[Path] = []
        """Workspaces this connection opened or listed sessions in (what `session/list`
        without `cwd` lists, where `session/delete` looks)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self.openings = Openings()
        """New sessions whose runtime is still opening (opening.py)."""
        self._catalog: ModelCatalog | None = None
        """The models on offer, shared by the connection's sessions (made after
        `initialize`, with the agent stack)."""

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
        """Negotiate the version and say what Karyi can do and how to sign in
        (capabilities.py; every capability there works)."""
        self.caps = client_capabilities or ClientCapabilities()
        self.later(agent_stack.load())  # the agent stack, once this answer is on its way
        return initialize_response(protocol_version, self.caps, image=True)

    async def new_session(
        self,
        cwd: str,
        mcp_servers: list[ClientServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        """A new session in the workspace `cwd`, answered at once: its runtime opens in
        the background, then `config_option_update` brings every config option
        (docs/acp.md#start-up); the session's other requests wait for it."""
        where = checked_where(cwd, additional_directories or [], mcp_servers or [])
        if self.client is None:
            raise RequestError.internal_error({"message": "no client connection"})
        session_id = new_session_id()
        self.openings.start(session_id, self._open_new(where, session_id))
        return NewSessionResponse(
            session_id=session_id, modes=session_modes(ACT), config_options=[mode_option(ACT)]
        )

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
        await agent_stack.load()
        from karyi.acp.replay import replay

        session = await self.reopen(cwd, mcp_servers, additional_directories, session_id)
        await replay(session)
        self.later(session.announce())
        return LoadSessionResponse(
            modes=session_modes(session.mode), config_options=list(session.options())
        )

    async def resume_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[ClientServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        """`session/resume`: a stored session continues without its history being sent
        (the model still has it)."""
        await agent_stack.load()

        session = await self.reopen(cwd, mcp_servers, additional_directories, session_id)
        self.later(session.announce())
        return ResumeSessionResponse(
            modes=session_modes(session.mode), config_options=list(session.options())
        )

    async def fork_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[ClientServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        """`session/fork` (unstable schema): a new session with the turns so far (forking.py)."""
        await agent_stack.load()
        from karyi.acp.forking import fork_session

        return await fork_session(self, cwd, session_id, mcp_servers, additional_directories)

    async def list_sessions(
        self, cursor: str | None = None, cwd: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """`session/list` (listing.py): no model or key is needed."""
        await agent_stack.load()
        from karyi.acp.listing import BadCursor, list_sessions

        if cwd is not None and not Path(cwd).is_absolute():
            raise invalid("cwd", f"{cwd!r} is not an absolute path")
        if cwd:  # known from now on: a session listed there may be deleted
            self.roots = list(dict.fromkeys([*self.roots, Path(cwd)]))
        roots = [Path(cwd)] if cwd else [*self.roots, Path.cwd()]
        try:
            return await asyncio.to_thread(list_sessions, roots, cursor)
        except BadCursor as exc:
            raise invalid("cursor", str(exc)) from None

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        """`session/close`: cancel its turn, free what it holds (it stays stored)."""
        opening = session_id in self.openings
        session = await self._settled(session_id)
        if session is None and not opening:
            raise RequestError.resource_not_found(session_id)
        if session is not None:
            session.cancel()
            await session.close()
        return CloseSessionResponse()

    async def delete_session(self, session_id: str, **kwargs: Any) -> DeleteSessionResponse:
        """`session/delete`: close it if open, then remove it from its workspace's store."""
        await agent_stack.load()
        from karyi.acp.stored import delete_stored

        session = await self._settled(session_id)
        roots = [session.runtime.workspace.root] if session else [*self.roots, Path.cwd()]
        if session is not None:
            session.cancel()
            await session.close()
        if not await asyncio.to_thread(delete_stored, roots, session_id):
            raise RequestError.resource_not_found(session_id)
        return DeleteSessionResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        """`session/set_config_option` (config_options.py), from the next turn."""
        await agent_stack.load()
        from karyi.acp.config_options import UnknownOption
        from karyi.agent.host import SessionBusy

        session = await self._session(session_id)
        try:
            options = await session.configure(config_id, value)
        except UnknownOption as exc:
            raise invalid("value", str(exc)) from None
        except SessionBusy as exc:
            raise RequestError.invalid_request(
                {"sessionId": session_id, "message": str(exc)}
            ) from None
        return SetSessionConfigOptionResponse(config_options=list(options))

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        """Both methods end the same way: the key is in the environment or keyring now,
        or the answer is `auth_required` saying where to put it."""
        await agent_stack.load()
        from karyi.acp.stored import key_missing

        if method_id not in (KEY_METHOD, LOGIN_METHOD):
            raise invalid("methodId", f"no sign-in method {method_id!r}")
        missing = await asyncio.to_thread(key_missing, Path.cwd(), self.flags)
        if missing:
            raise RequestError.auth_required({"message": missing})
        return AuthenticateResponse()

    async def logout(self, **kwargs: Any) -> LogoutResponse:
        """`logout`: remove the model's key from the keyring (as `karyi logout`); the
        next prompt of every session asks for sign-in unless the environment has a key."""
        await agent_stack.load()
        from karyi.acp.stored import forget_keys

        await self.openings.settle()  # a session still opening is signed out too
        models = [s.model_settings() for s in self.sessions.values()]
        removed = await asyncio.to_thread(forget_keys, Path.cwd(), self.flags, models)
        log.info("logout removed %s", ", ".join(removed) or "nothing")
        for session in self.sessions.values():
            session.signed_out()
        return LogoutResponse()

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        """`session/set_mode`: plan or act (docs/workflow.md#plan-mode), between turns."""
        await agent_stack.load()
        from karyi.agent.host import SessionBusy
        from karyi.agent.prompting.modes import UnknownMode

        session = await self._session(session_id)
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
        await agent_stack.load()
        from karyi.acp.session import AuthRequired
        from karyi.acp.task_sessions import ReadOnly
        from karyi.agent.host import SessionBusy

        session = await self._session(session_id)
        try:
            return await session.prompt(prompt)
        except AuthRequired as exc:
            raise RequestError.auth_required({"message": str(exc)}) from None
        except (SessionBusy, ReadOnly) as exc:
            raise RequestError.invalid_request(
                {"sessionId": session_id, "message": str(exc)}
            ) from None

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """`session/cancel` (a notification: an unknown session is only logged)."""
        try:
            session = await self._session(session_id)
        except RequestError as exc:
            log.warning("session/cancel for %s: %s", session_id, exc.data or exc)
            return
        session.cancel()

    async def close(self) -> None:
        """Close every session (and the processes their runtimes started)."""
        await self.openings.settle()
        sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            try:
                await session.close()
            except Exception:
                log.exception("closing session %s failed", session.id)

    def later(self, job: Coroutine[Any, Any, None]) -> None:
        """Run `job` after the current answer was queued (the SDK sends in order)."""
        task = asyncio.ensure_future(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _session(self, session_id: str) -> AcpSession:
        """The open session `session_id`, once its runtime is open (opening.py); -32602
        for a session this connection does not have."""
        session = self.sessions.get(session_id) or await self.openings.wait(session_id)
        if session is None:
            raise invalid(
                "sessionId",
                f"no session {session_id!r} on this connection: create one with session/new "
                "or load it with session/load",
            )
        return session

    async def _settled(self, session_id: str) -> AcpSession | None:
        """Take the session out of this connection (once it is open; None when it is not
        there or its opening failed), so it can be closed or replaced."""
        with contextlib.suppress(RequestError):
            await self.openings.wait(session_id)
        self.openings.forget(session_id)
        return self.sessions.pop(session_id, None)

    def _wiring(self) -> Wiring:
        from karyi.acp.builder import Wiring
        from karyi.agent.models import ModelCatalog

        assert self.client is not None  # checked before a session is opened
        self._catalog = self._catalog or ModelCatalog()
        return Wiring(self.client, self.caps, self.flags, self._catalog)

    async def _build(self, where: Where, sid: str | None, new_id: str | None) -> AcpSession:
        """Open a session in a worker thread (builder.py); `_hold` makes it this
        connection's."""
        from karyi.acp.builder import build_session

        wiring = self._wiring()
        return await asyncio.to_thread(build_session, wiring, where, sid, new_id)

    def _hold(self, session: AcpSession) -> AcpSession:
        self.sessions[session.id] = session
        self.roots = list(dict.fromkeys([*self.roots, session.runtime.workspace.root]))
        return session

    async def _open_new(self, where: Where, session_id: str) -> AcpSession:
        """The background half of `session/new`: the agent stack, the runtime, then every
        config option (`config_option_update`) before the session takes requests."""
        # A failure here is told by `Openings.wait` to every request for the session.
        await agent_stack.load()  # before any import of it here: not on the event loop
        session = await self._build(where, None, session_id)
        from karyi.acp.config_options import options_update

        pinned = session.runtime.settings.pinned_note()  # docs/security.md#managed-settings
        try:
            await session.client.session_update(session.id, options_update(session.options()))
            if pinned is not None:
                await session.client.session_update(session.id, update_agent_message_text(pinned))
        except Exception as exc:  # a client gone away: nothing to tell
            log.debug("config_option_update failed: %s", exc)
        self.later(session.announce())
        return self._hold(session)

    async def reopen(
        self, cwd: str, servers: list[ClientServer] | None, extra: list[str] | None, sid: str
    ) -> AcpSession:
        """A stored session, replacing this connection's copy of it; a background task's
        opens in its worktree, read-only (task_sessions.py)."""
        from karyi.acp.task_sessions import task_session

        old = await self._settled(sid)
        if old is not None:
            await old.close()
        task = await asyncio.to_thread(task_session, Path(cwd), sid)
        where = checked_where(str(task.worktree) if task else cwd, extra or [], servers or [])
        if self.client is None:
            raise RequestError.internal_error({"message": "no client connection"})
        session = self._hold(await self._build(where, sid, None))
        session.read_only = task.read_only if task else None
        return session
