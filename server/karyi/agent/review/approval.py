"""Whether a tool call may run: decided once per call, asked in call order, remembered.

A call's permission (`permission_for`) comes, in order, from the user's
`permissions.tools.NAME: deny`, the tool's own verdict on its parameters (the command
rules of docs/security.md), the user's setting for the tool, and the tool's default.
It is decided once, when the call is submitted, and carried along in a `Ticket`.

A call that must be confirmed takes its place in the reply's approval line: the user is
asked one call at a time, in the order the calls were written. An "allow always" or
"reject always" answer (the `PermissionMemory` of `agent/review/permissions.py`) settles later
calls with the same approval key without asking. The user's answer is a `Decision`;
for an edit it may carry the user's own final text per file (`agent/review/edit_answer.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from karyi.agent.events import Listener, ToolAwaitingPermission
from karyi.agent.review.permissions import PermissionMemory, Scope
from karyi.core.errors import ErrorCode
from karyi.core.results import Permission, PermissionVerdict, ToolResult
from karyi.protocol.calls import ToolCall
from karyi.tools.base import Confirmation, Tool
from karyi.tools.context import ToolContext


@dataclass(frozen=True)
class ApprovalRequest:
    """A call waiting for the user's yes or no."""

    call: ToolCall
    tool: Tool
    description: str
    confirmation: Confirmation | None
    reason: str = ""


@dataclass(frozen=True)
class Decision:
    """The user's answer to an ApprovalRequest.

    `params` replaces the call's parameters when the user modified the proposal (an
    edited diff); `note` is told to the model along with the result.
    """

    allow: bool
    feedback: str | None = None
    params: dict[str, Any] | None = None
    note: str | None = None
    remember: Scope | None = None
    overrides: dict[str, tuple[str, str]] | None = None
    """Per file (absolute path): (the text the user saw, the text they chose)."""
    reject_always: bool = False


Approver = Callable[[ApprovalRequest], Awaitable[Decision]]


async def approve_all(_request: ApprovalRequest) -> Decision:
    """An approver for `--yes`: every call is allowed."""
    return Decision(True)


async def deny_all(_request: ApprovalRequest) -> Decision:
    """An approver for non-interactive use without `--yes`."""
    return Decision(False)


def permission_for(tool: Tool, params: Mapping[str, Any], ctx: ToolContext) -> PermissionVerdict:
    """Whether this call runs, asks, or is refused, and why.

    In order: the user's `permissions.tools.NAME: deny`; the tool's own verdict on these
    parameters (command rules); the user's setting for the tool; a skill of the user's in
    use that pre-approved the tool (tools/builtin/skills.py); the tool's default. So a
    skill never overrides a command rule, the sandbox's "always asked" or the user's own
    setting.
    """
    setting = ctx.settings.permissions.tools.get(tool.name)
    configured = Permission(setting) if setting else None
    if configured == Permission.DENY:
        managed = (ctx.settings.managed.get("permissions") or {}).get("tools") or {}
        if managed.get(tool.name) == "deny":
            return PermissionVerdict(
                Permission.DENY,
                f"{tool.name} is {ctx.settings.managed_refusal(f'permissions.tools.{tool.name}')}",
            )
        return PermissionVerdict(
            Permission.DENY, f"{tool.name} is denied by the user's settings (permissions.tools)"
        )
    try:
        verdict = tool.permission_for(params, ctx)
    except Exception as exc:  # a broken judgement must not let the call through
        verdict = PermissionVerdict(Permission.CONFIRM, f"the permission check failed: {exc}")
    if verdict is not None and verdict.permission is not None:
        return verdict
    reason = verdict.reason if verdict is not None else ""
    if configured:
        return PermissionVerdict(configured, reason)
    skill = ctx.skill_grants.get(tool.name)
    if skill is not None and tool.permission is Permission.CONFIRM:
        return PermissionVerdict(Permission.AUTO, f"pre-approved by skill {skill} (allowed-tools)")
    return PermissionVerdict(tool.permission, reason)


def refusal(verdict: PermissionVerdict) -> ToolResult | None:
    """The result of a call its permission denies; None when it may go on."""
    if verdict.permission is Permission.DENY:
        return ToolResult.fail(ErrorCode.PERMISSION_DENIED, verdict.reason)
    return None


Gate = tuple["asyncio.Future[None] | None", "asyncio.Future[None]"]
"""A place in the approval line: (the previous call's turn, this call's turn)."""


@dataclass(frozen=True)
class Ticket:
    """A call's permission, decided once, and its place in the approval line (None when
    it runs without asking)."""

    verdict: PermissionVerdict
    gate: Gate | None = None


@dataclass(frozen=True)
class Settled:
    """How the approval of one call ended: the decision recorded with the call, and
    either the refusal to report or what to run the call with."""

    decision: str
    refused: ToolResult | None = None
    params: dict[str, Any] | None = None
    note: str | None = None
    overrides: dict[str, tuple[str, str]] | None = None


def _ignore(_event: object) -> None:
    return None


class ApprovalLine:
    """The approvals of one reply: one question at a time, in call order."""

    def __init__(
        self,
        approver: Approver,
        memory: PermissionMemory | None = None,
        emit: Listener = _ignore,
    ) -> None:
        self.approver = approver
        self.memory = memory
        self.emit = emit
        self._tail: asyncio.Future[None] | None = None

    def line_up(self, verdict: PermissionVerdict) -> Ticket:
        """The ticket of a call that will run; a call to confirm joins the line now, so
        the questions come in the order the calls were submitted."""
        if verdict.permission is not Permission.CONFIRM:
            return Ticket(verdict)
        mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        gate = (self._tail, mine)
        self._tail = mine
        return Ticket(verdict, gate)

    async def settle(
        self, call: ToolCall, tool: Tool, ctx: ToolContext, ticket: Ticket, description: str
    ) -> Settled:
        """Whether the call runs, and with what: remembered answers first, then the user."""
        gate = ticket.gate
        if gate is None:
            return Settled("auto")
        remembered = self._remembered(tool, call)
        if remembered is None:
            # An earlier call's question may end in "always" for this one too: ask only
            # once it is answered.
            await _turn(gate)
            remembered = self._remembered(tool, call)
        if remembered is not None:
            _pass_gate(gate)
            if remembered == "rejected":
                message = (
                    f"the user rejects every call like this {tool.name} call for the rest of "
                    "the session"
                )
                return Settled("rejected always", ToolResult.fail(ErrorCode.REJECTED, message))
            return Settled(f"always ({remembered})")
        answer = await self._ask(call, tool, ctx, ticket, description)
        return self._record(tool, call, answer)

    def _record(self, tool: Tool, call: ToolCall, answer: Decision) -> Settled:
        """The user's answer as the call's outcome; "always" answers are remembered."""
        key = tool.approval_key(call.params)
        remember = tool.rememberable(call.params)
        if not answer.allow:
            if answer.reject_always and self.memory is not None and remember:
                self.memory.reject_always(key)
            return Settled("rejected", _rejected(tool, answer))
        modified = answer.params is not None or answer.overrides is not None
        decision = "modified" if modified else "allowed"
        if answer.remember is not None and self.memory is not None and remember:
            self.memory.remember(key, answer.remember)
            decision = f"allowed always ({answer.remember})"
        return Settled(decision, None, answer.params, answer.note, answer.overrides or None)

    def _remembered(self, tool: Tool, call: ToolCall) -> str | None:
        if self.memory is None:
            return None
        try:
            if not tool.rememberable(call.params):
                return None
            key = tool.approval_key(call.params)
            return "rejected" if key in self.memory.rejected else self.memory.allowed(key)
        except Exception:
            return None

    async def _ask(
        self, call: ToolCall, tool: Tool, ctx: ToolContext, ticket: Ticket, description: str
    ) -> Decision:
        assert ticket.gate is not None
        before, mine = ticket.gate
        try:
            if before is not None:
                await asyncio.shield(before)
            try:
                confirmation = tool.confirmation(call.params, ctx)
            except Exception:
                confirmation = None
            reason = ticket.verdict.reason
            self.emit(ToolAwaitingPermission(call, description, confirmation, reason))
            request = ApprovalRequest(call, tool, description, confirmation, reason)
            return await self.approver(request)
        finally:
            if not mine.done():
                mine.set_result(None)


async def _turn(gate: Gate) -> None:
    """Wait until the questions before this call's are answered; a call cancelled while
    waiting lets the next one go."""
    before, mine = gate
    if before is None:
        return
    try:
        await asyncio.shield(before)
    except BaseException:
        if not mine.done():
            mine.set_result(None)
        raise


def _pass_gate(gate: Gate) -> None:
    """Let the next approval go as soon as the previous one has (no prompt of our own)."""
    before, mine = gate

    def release(_: object = None) -> None:
        if not mine.done():
            mine.set_result(None)

    if before is None or before.done():
        release()
    else:
        before.add_done_callback(release)


def _rejected(tool: Tool, decision: Decision) -> ToolResult:
    message = f"the user rejected this {tool.name} call"
    if decision.feedback:
        message += f", saying: {decision.feedback}"
    return ToolResult.fail(ErrorCode.REJECTED, message)
