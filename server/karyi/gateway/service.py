"""What a request asks the gateway to do, independent of HTTP: run a tool, start a turn,
answer a paused turn, cancel one. Sessions belong to the `user_id` that created them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from collections.abc import Callable

from karyi.agent.host import AgentHost, LiveSession, NotPending
from karyi.agent.review.approval import Decision
from karyi.agent.runtime import Runtime
from karyi.agent.session.store import SessionNotFound
from karyi.agent.turn.spec import AgentSpec
from karyi.gateway.errors import GatewayError
from karyi.gateway.models import AgentRequest, PermissionAnswer
from karyi.gateway.owners import Owner, SessionOwners
from karyi.gateway.tools import ToolReply, ToolRunner
from karyi.gateway.turns import Turn, TurnHub
from karyi.gateway.views import pending_call
from karyi.llm.base import Provider, ProviderError
from karyi.tools.base import Tool
from karyi.tools.builtin.commands.common import CommandTool
from karyi.tools.builtin.commands.terminal import Ctrl, Input
from karyi.tools.registry import Toolkit

MAX_LOADED = 64
"""Idle sessions kept in memory (each holds a model client); older ones are unloaded."""


def runs_commands(tool: Tool) -> bool:
    """Tools that run shell commands or type into a terminal."""
    # Each of them runs programs: asking that first imports no other tool's code.
    return tool.runs_programs and isinstance(tool.loaded(), CommandTool | Input | Ctrl)


def _session_key(user_id: str, session_id: str | None) -> str:
    """Whose reads and environment a tool call uses: one per (user, session)."""
    if not session_id:
        return "http"
    digest = hashlib.sha256(f"{user_id}\0{session_id}".encode()).hexdigest()[:16]
    return f"http-{digest}"


class Gateway:
    """The gateway's state: the runtime, the tool runner, the sessions and their turns."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        provider_factory: Callable[[], Provider] | None = None,
    ) -> None:
        self.runtime = runtime
        self.tools = ToolRunner(runtime)
        self.host = AgentHost(runtime, provider_factory=provider_factory, spec_factory=self.spec)
        self.owners = SessionOwners.for_workspace(runtime.workspace.root)
        self.turns = TurnHub(self.host, runtime.settings.gateway.permission_timeout_seconds)
        self._closing: set[asyncio.Future[None]] = set()

    def spec(self) -> AgentSpec:
        """The runtime's agent; without its command tools while the shell is disabled."""
        spec = self.runtime.spec()
        if self.runtime.settings.gateway.enable_shell:
            return spec
        kept = {t.name: t for t in spec.toolkit if not runs_commands(t)}
        return dataclasses.replace(spec, toolkit=Toolkit(spec.toolkit.agent, kept))

    # -- sessions -------------------------------------------------------------------------

    def owner(self, request: AgentRequest) -> Owner | None:
        """The request's session among its user_id's sessions, if it exists."""
        if not request.session_id:
            return None
        return self.owners.get(request.user_id or "", request.session_id)

    def _existing(self, request: AgentRequest, what: str) -> Owner:
        if not request.session_id:
            raise GatewayError("invalid_request", f"session_id: required with {what}")
        owner = self.owner(request)
        if owner is None:
            raise GatewayError(
                "session_not_found",
                f"no session {request.session_id!r} for user_id {request.user_id or ''!r}",
            )
        return owner

    def _load(self, owner: Owner | None, request: AgentRequest) -> tuple[str, LiveSession]:
        try:
            if owner is not None:
                try:
                    stored = self.host.session(owner.store_id)
                    self.host.require_model(stored)
                    return owner.session_id, stored
                except SessionNotFound:  # deleted from the store: start it again
                    pass
            live = self.host.session(None)
        except ProviderError as exc:
            message = f"the model is not usable: {exc.message}"
            raise GatewayError("agent_unavailable", message) from None
        session_id = request.session_id or live.id
        self.owners.bind(session_id, request.user_id or "", live.id, request.channel)
        return session_id, live

    def _refuse_if_running(self, owner: Owner) -> None:
        turn = self.turns.running(owner.store_id)
        if turn is None:
            return
        if pending := turn.pending():
            ids = ", ".join(p.request.call.id for p in pending)
            raise GatewayError(
                "permission_pending",
                f"session {owner.session_id!r} is waiting for permission on {ids}: answer with "
                "biz_params.permission before sending a new message",
                pending=[pending_call(p) for p in pending],
            )
        raise GatewayError(
            "session_busy",
            f"session {owner.session_id!r} is already running a turn: wait for its response "
            "or cancel it with biz_params.cancel",
        )

    # -- what a request asks ----------------------------------------------------------------

    async def run_tool(self, request: AgentRequest) -> ToolReply:
        """`biz_params.tool`: one tool call."""
        assert request.biz_params is not None and request.biz_params.tool is not None
        tool = request.biz_params.tool
        key = _session_key(request.user_id or "", request.session_id)
        return await self.tools.run(tool.name, tool.input, key)

    def start_turn(self, request: AgentRequest) -> Turn:
        """A turn on `input` in the request's session (created when new)."""
        text = request.text()
        if not text.strip():
            raise GatewayError(
                "invalid_request",
                "input: expected at least one user message with text (or biz_params.tool, "
                "biz_params.permission, biz_params.cancel)",
            )
        owner = self.owner(request)
        if owner is not None:
            self._refuse_if_running(owner)
        session_id, live = self._load(owner, request)
        turn = self.turns.start(session_id, live, text)
        self._unload_idle()
        return turn

    def answer(self, request: AgentRequest) -> Turn:
        """`biz_params.permission`: resolve a paused call; the turn goes on."""
        assert request.biz_params is not None and request.biz_params.permission is not None
        answer = request.biz_params.permission
        owner = self._existing(request, "biz_params.permission")
        turn = self.turns.running(owner.store_id)
        if turn is None:
            raise GatewayError(
                "not_pending", f"session {owner.session_id!r} has no turn waiting for permission"
            )
        try:
            self.host.answer(owner.store_id, answer.tool_call_id, _decision(answer))
        except NotPending as exc:
            raise GatewayError(
                "not_pending", str(exc), pending=[pending_call(p) for p in turn.pending()]
            ) from None
        return turn

    def cancel(self, request: AgentRequest) -> Turn:
        """`biz_params.cancel`: stop the session's turn; its response says how it ended."""
        owner = self._existing(request, "biz_params.cancel")
        turn = self.turns.running(owner.store_id)
        if turn is None:
            raise GatewayError("not_pending", f"session {owner.session_id!r} is not running a turn")
        self.host.cancel(owner.store_id)
        return turn

    def follow(self, request: AgentRequest) -> Turn:
        """`biz_params.follow`: the session's latest turn, running or ended."""
        owner = self._existing(request, "biz_params.follow")
        turn = self.turns.latest(owner.store_id)
        if turn is None:
            raise GatewayError(
                "not_pending",
                f"session {owner.session_id!r} has run no turn since the server started",
            )
        return turn

    def _unload_idle(self) -> None:
        loaded = self.host.loaded()
        idle = [live for live in loaded if not live.agent.busy]
        for live in idle[: max(0, len(loaded) - MAX_LOADED)]:
            self.host.forget(live.id)
            self.turns.forget(live.id)
            task = asyncio.ensure_future(live.agent.provider.aclose())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def close(self) -> None:
        """Stop every turn, then the runtime (no shell process outlives the gateway)."""
        await self.turns.close()
        await self.host.close()
        self.owners.close()


def _decision(answer: PermissionAnswer) -> Decision:
    if answer.outcome == "allow":
        return Decision(True)
    if answer.outcome == "allow_always":
        # Over HTTP "always" lasts for the session: a client cannot persist approvals
        # into the user's editor or other workspaces.
        return Decision(True, remember="session")
    return Decision(False, answer.feedback or None)
