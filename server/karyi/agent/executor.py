"""Running one reply's tool calls: check, ask, execute in parallel, report in order.

Calls are submitted as the parser completes them, so a call can start while the model
is still writing the next one. Each call is checked (parse error, unknown tool, invalid
parameters, permission) before anything runs; a failing call never stops the others.
Approvals are asked one at a time in call order; calls that touch the same resource
(the same file, the same terminal) run in the order written, a call that runs programs
(`Tool.runs_programs`: a command, an MCP or discovered tool) after every call written
before it and before every call written after it, a search or listing
(`Tool.scans_tree`) after the earlier calls that change files and before the later
ones; the rest run in parallel.
Every step is reported as an event.

Secure variables: `$KARYI{NAME}` placeholders are replaced on a copy of the parameters
just before the tool runs, and every result is redacted before anyone sees it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from karyi.agent.events import (
    Event,
    FileChanged,
    ToolAwaiting,
    ToolDone,
    ToolOutput,
    ToolQueued,
    ToolRunning,
)
from karyi.agent.permissions import PermissionMemory, Scope
from karyi.core.errors import ErrorCode
from karyi.core.results import Permission, PermissionVerdict, ToolResult
from karyi.protocol.calls import CallOutcome, ToolCall
from karyi.secrets.redact import StreamRedactor
from karyi.secrets.substitute import UnknownVariable, placeholders, substitute
from karyi.tools.base import Confirmation, Tool
from karyi.tools.context import ToolContext
from karyi.tools.registry import Toolkit
from karyi.workspace.editor import WriteRecord


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
Emit = Callable[[Event], None]


async def approve_all(_request: ApprovalRequest) -> Decision:
    """An approver for `--yes`: every call is allowed."""
    return Decision(True)


async def deny_all(_request: ApprovalRequest) -> Decision:
    """An approver for non-interactive use without `--yes`."""
    return Decision(False)


def _ignore(_event: Event) -> None:
    return None


@dataclass(frozen=True)
class Executed:
    """A call, its result, what the user decided, and when it ran."""

    call: ToolCall
    result: ToolResult
    decision: str = "auto"
    started: float = 0.0
    finished: float = 0.0

    def outcome(self) -> CallOutcome:
        """The protocol-level view a dialect renders."""
        r = self.result
        return CallOutcome(
            call=self.call,
            success=r.success,
            content=r.llm_content,
            status=r.status,
            error_code=r.error.code if r.error else None,
            data=r.data,
        )


def permission_for(tool: Tool, params: Mapping[str, Any], ctx: ToolContext) -> PermissionVerdict:
    """Whether this call runs, asks, or is refused, and why.

    In order: the user's `permissions.tools.NAME: deny`; the tool's own verdict on these
    parameters (command rules); the user's setting for the tool; the tool's default.
    """
    configured = ctx.settings.tool_permission(tool.name)
    if configured == Permission.DENY:
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
        return PermissionVerdict(Permission(configured), reason)
    return PermissionVerdict(tool.permission, reason)


Gate = tuple["asyncio.Future[None] | None", "asyncio.Future[None]"]


class CallBatch:
    """The calls of one reply, run as they arrive."""

    def __init__(
        self,
        toolkit: Toolkit,
        ctx: ToolContext,
        approver: Approver,
        *,
        emit: Emit = _ignore,
        before_change: Callable[[], Awaitable[None]] | None = None,
        memory: PermissionMemory | None = None,
    ) -> None:
        self.toolkit = toolkit
        self.ctx = ctx
        self.approver = approver
        self.emit = emit
        self.memory = memory
        self._before_change = before_change
        self._change_gate: asyncio.Task[None] | None = None
        self._tasks: list[asyncio.Task[Executed]] = []
        self._by_resource: dict[str, asyncio.Task[Executed]] = {}
        self._barrier: asyncio.Task[Executed] | None = None
        self._changers: list[asyncio.Task[Executed]] = []
        self._scanners: list[asyncio.Task[Executed]] = []
        self._approval_tail: asyncio.Future[None] | None = None

    def submit(self, call: ToolCall) -> asyncio.Task[Executed]:
        """Check `call` now and schedule it; returns the task that yields its result."""
        ctx = dataclasses.replace(
            self.ctx, call_id=call.id, on_output=self._mirror(call), emit=self.emit
        )
        tool, failure = self._check(call)
        keys: frozenset[str] = frozenset()
        gate: Gate | None = None
        decision = "auto"
        if failure is None and tool is not None:
            verdict = permission_for(tool, call.params, ctx)
            mode = verdict.permission
            if mode is Permission.DENY:
                decision = "denied"
                failure = ToolResult.fail(ErrorCode.PERMISSION_DENIED, verdict.reason)
            elif missing := _unknown_variables(call.params, ctx):
                failure = ToolResult.fail(ErrorCode.INVALID_TOOL_INPUT, str(missing))
            else:
                if mode is Permission.CONFIRM:
                    mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                    gate = (self._approval_tail, mine)
                    self._approval_tail = mine
                keys = _resources(tool, call, ctx)
                self.emit(ToolQueued(call, _describe(tool, call)))
        live = tool if failure is None else None
        barrier = live is not None and live.runs_programs
        scans = live is not None and _scans(live, call, ctx)
        changes = live is not None and live.changes_files
        if barrier:
            deps = list(self._tasks)
        else:
            deps = [self._by_resource[k] for k in keys if k in self._by_resource]
            deps += [self._barrier] if self._barrier is not None else []
            deps += (self._changers if scans else []) + (self._scanners if changes else [])
        job = self._run(call, tool, ctx, failure, decision, deps, gate)
        task = asyncio.ensure_future(job)
        for key in keys:
            self._by_resource[key] = task
        if barrier:
            self._barrier = task
        if scans:
            self._scanners.append(task)
        if changes:
            self._changers.append(task)
        self._tasks.append(task)
        return task

    def _check(self, call: ToolCall) -> tuple[Tool | None, ToolResult | None]:
        if not call.ok:
            code = call.error_code or ErrorCode.MALFORMED_CALL
            return None, ToolResult.fail(code, str(call.error))
        tool = self.toolkit.get(call.name)
        if tool is None:
            message = self.toolkit.unknown_message(call.name)
            return None, ToolResult.fail(ErrorCode.UNKNOWN_TOOL, message)
        problem = tool.validate(call.params)
        if problem:
            message = f"{tool.name}: {problem}"
            return tool, ToolResult.fail(ErrorCode.INVALID_TOOL_INPUT, message)
        return tool, None

    async def _run(
        self,
        call: ToolCall,
        tool: Tool | None,
        ctx: ToolContext,
        failure: ToolResult | None,
        decision: str,
        deps: list[asyncio.Task[Executed]],
        gate: Gate | None,
    ) -> Executed:
        started = time.time()
        if failure is not None or tool is None:
            assert failure is not None
            return self._done(Executed(call, failure, decision, started, started))
        params: dict[str, Any] = call.params
        note: str | None = None
        try:
            if deps:
                await asyncio.wait(deps)
            remembered = self._remembered(tool, call) if gate is not None else None
            if remembered == "rejected":
                assert gate is not None
                _pass_gate(gate)
                refused = ToolResult.fail(
                    ErrorCode.REJECTED,
                    f"the user rejects every call like this {tool.name} call for the rest of "
                    "the session",
                )
                return self._done(Executed(call, refused, "rejected always", started, time.time()))
            if remembered is not None:
                decision = f"always ({remembered})"
                assert gate is not None
                _pass_gate(gate)
            elif gate is not None:
                answer = await self._ask(call, tool, ctx, gate)
                key = tool.approval_key(call.params)
                if not answer.allow:
                    if answer.reject_always and self.memory is not None:
                        self.memory.reject_always(key)
                    rejected = _rejected(tool, answer)
                    return self._done(Executed(call, rejected, "rejected", started, time.time()))
                modified = answer.params is not None or answer.overrides is not None
                decision = "modified" if modified else "allowed"
                params = answer.params if answer.params is not None else params
                note = answer.note
                if answer.overrides:
                    ctx = dataclasses.replace(ctx, overrides=answer.overrides)
                if answer.remember is not None and self.memory is not None:
                    self.memory.remember(key, answer.remember)
                    decision = f"allowed always ({answer.remember})"
            if tool.changes_files and self._before_change is not None:
                await self._checkpoint()
            self.emit(ToolRunning(call))
            started = time.time()
            result = await self._execute_recorded(call, tool, params, ctx)
            if note:
                result = dataclasses.replace(result, llm_content=f"{note}\n{result.llm_content}")
            return self._done(Executed(call, result, decision, started, time.time()))
        except asyncio.CancelledError:
            cancelled = ToolResult.fail(ErrorCode.CANCELLED, f"{tool.name} was cancelled")
            return self._done(Executed(call, cancelled, decision, started, time.time()))

    async def _execute_recorded(
        self, call: ToolCall, tool: Tool, params: Mapping[str, Any], ctx: ToolContext
    ) -> ToolResult:
        """Run the tool with a fresh write journal; hand the editor its writes; report
        what changed."""
        journal: list[WriteRecord] = []
        ctx = dataclasses.replace(ctx, journal=journal)
        try:
            result = await _execute(tool, params, ctx)
        finally:
            flush = getattr(ctx.on_output, "flush", None)
            if callable(flush):
                flush()
        deferred = [w for w in journal if w.deferred]
        if deferred and ctx.editor is not None:
            problems = await ctx.editor.apply(deferred, _describe(tool, call))
            if problems:
                message = "; ".join(problems)
                result = ToolResult.fail(
                    ErrorCode.CONFLICT, message, llm_content=f"{message}\n{result.llm_content}"
                )
                failed = set(problems)
                journal = [w for w in journal if not w.deferred] if failed else journal
        if journal:
            self.emit(FileChanged(call, tuple(w.planned() for w in journal)))
        return result

    def _mirror(self, call: ToolCall) -> Callable[[str], None]:
        """Live output of the call as ToolOutput events, redacted as it streams."""
        secrets = self.ctx.secrets
        stream = StreamRedactor(secrets.redactor) if secrets is not None else None

        def out(text: str) -> None:
            safe = stream.feed(text) if stream is not None else text
            if safe:
                self.emit(ToolOutput(call.id, safe))

        def flush() -> None:
            rest = stream.flush() if stream is not None else ""
            if rest:
                self.emit(ToolOutput(call.id, rest))

        out.flush = flush  # type: ignore[attr-defined]
        return out

    def _remembered(self, tool: Tool, call: ToolCall) -> str | None:
        if self.memory is None:
            return None
        try:
            key = tool.approval_key(call.params)
            return "rejected" if key in self.memory.rejected else self.memory.allowed(key)
        except Exception:
            return None

    def _done(self, executed: Executed) -> Executed:
        seconds = max(0.0, executed.finished - executed.started)
        self.emit(ToolDone(executed.call, executed.result, executed.decision, seconds))
        return executed

    async def _checkpoint(self) -> None:
        if self._change_gate is None:
            assert self._before_change is not None
            self._change_gate = asyncio.ensure_future(self._before_change())
        await asyncio.shield(self._change_gate)

    async def _ask(self, call: ToolCall, tool: Tool, ctx: ToolContext, gate: Gate) -> Decision:
        before, mine = gate
        try:
            if before is not None:
                await asyncio.shield(before)
            try:
                confirmation = tool.confirmation(call.params, ctx)
            except Exception:
                confirmation = None
            description = _describe(tool, call)
            reason = permission_for(tool, call.params, ctx).reason
            self.emit(ToolAwaiting(call, description, confirmation, reason))
            request = ApprovalRequest(call, tool, description, confirmation, reason)
            return await self.approver(request)
        finally:
            if not mine.done():
                mine.set_result(None)

    async def finish(self) -> list[Executed]:
        """Wait for every submitted call; results in call order. Cancelling cancels all."""
        try:
            return list(await asyncio.gather(*self._tasks))
        except asyncio.CancelledError:
            await self.abort()
            raise

    async def abort(self) -> None:
        """Cancel every call still running and wait until they have stopped."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def finished(self) -> list[Executed]:
        """Results of the calls that completed (after a cancellation, for the record)."""
        return [t.result() for t in self._tasks if t.done() and not t.cancelled()]


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


def _describe(tool: Tool, call: ToolCall) -> str:
    try:
        return tool.describe(call.params)
    except Exception:
        return tool.name


def _unknown_variables(params: Mapping[str, Any], ctx: ToolContext) -> UnknownVariable | None:
    """Placeholders that name no variable, caught before anyone is asked to approve."""
    lookup = ctx.secrets.lookup if ctx.secrets is not None else _no_secrets
    missing = sorted(n for n in placeholders(params) if lookup(n) is None)
    return UnknownVariable(missing) if missing else None


def _no_secrets(_name: str) -> str | None:
    return None


async def _execute(tool: Tool, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
    """Run the tool on a copy of `params` with `$KARYI{NAME}` substituted, and redact
    every secret value from what it returns. The call keeps its placeholders: what the
    model wrote, what the user approved and what is logged never hold a value.
    """
    lookup = ctx.secrets.lookup if ctx.secrets is not None else _no_secrets
    try:
        params = substitute(params, lookup)
    except UnknownVariable as exc:
        return ToolResult.fail(ErrorCode.INVALID_TOOL_INPUT, str(exc))
    result = await tool.run(params, ctx)
    if ctx.secrets is not None:
        result = ctx.secrets.redactor.redact_result(result)
    return result


def _resources(tool: Tool, call: ToolCall, ctx: ToolContext) -> frozenset[str]:
    try:
        return tool.resources(call.params, ctx)
    except Exception:  # a path the policy refuses: the call will fail on its own
        return frozenset()


def _scans(tool: Tool, call: ToolCall, ctx: ToolContext) -> bool:
    try:
        return tool.scans_tree(call.params, ctx)
    except Exception:  # a path the policy refuses: the call will fail on its own
        return False


def _rejected(tool: Tool, decision: Decision) -> ToolResult:
    message = f"the user rejected this {tool.name} call"
    if decision.feedback:
        message += f", saying: {decision.feedback}"
    return ToolResult.fail(ErrorCode.REJECTED, message)


async def run_calls(
    calls: list[ToolCall], toolkit: Toolkit, ctx: ToolContext, approver: Approver
) -> list[Executed]:
    """Run a complete list of calls (what `karyi exec` does)."""
    batch = CallBatch(toolkit, ctx, approver)
    for call in calls:
        batch.submit(call)
    return await batch.finish()
