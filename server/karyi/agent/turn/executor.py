"""Running one reply's tool calls: check, ask, execute in parallel, report in order.

Calls are submitted as the parser completes them, so a call can start while the model
is still writing the next one. Each call is checked (parse error, unknown tool, invalid
parameters, permission, unknown `$KARYI{NAME}` variables) before anything runs; a
failing call never stops the others. This module only sequences; each step has its
own home:

- the permission and the user's answer: `agent/review/approval.py` (asked one at a time, in
  call order);
- which calls wait for which: `agent/turn/call_order.py`;
- secure variables substituted in and redacted out: `agent/turn/secure_values.py`;
- the files a call changed: `agent/review/write_journal.py`.

Every step is reported as an event.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from karyi.agent.diagnostics.problems import ProblemCheck, ProblemSource
from karyi.agent.events import Listener, ToolDone, ToolOutput, ToolQueued, ToolRunning
from karyi.agent.review.approval import ApprovalLine, Approver, Ticket, permission_for, refusal
from karyi.agent.review.permissions import PermissionMemory
from karyi.agent.review.write_journal import run_journaled
from karyi.agent.turn.call_order import CallOrder, resources_of
from karyi.agent.turn.hooks import Hooks
from karyi.agent.turn.secure_values import RedactedOutput, run_with_secrets, unknown_variables
from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult
from karyi.core.text import invalid_text_at, valid_text, valid_tree
from karyi.protocol.calls import CallOutcome, ToolCall
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext
from karyi.tools.registry import Toolkit
from karyi.workspace.editor import BufferSource

log = logging.getLogger(__name__)


def _ignore(_event: object) -> None:
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


@dataclass(frozen=True)
class _Planned:
    """A call that passed every check: what it runs with and how it is asked about."""

    tool: Tool
    ctx: ToolContext
    output: RedactedOutput | None
    """The call's live output, redacted; None when nobody listens (`karyi exec`)."""
    ticket: Ticket
    description: str


@dataclass(frozen=True)
class _Failed:
    """A call that failed a check: it runs nothing and reports `result`."""

    result: ToolResult
    decision: str = "auto"


class CallBatch:
    """The calls of one reply, run as they arrive."""

    def __init__(
        self,
        toolkit: Toolkit,
        ctx: ToolContext,
        approver: Approver,
        *,
        emit: Listener = _ignore,
        before_change: Callable[[], Awaitable[None]] | None = None,
        memory: PermissionMemory | None = None,
        problems: ProblemSource | None = None,
        gate: Callable[[ToolCall, Tool], ToolResult | None] | None = None,
        hooks: Hooks | None = None,
    ) -> None:
        self.toolkit = toolkit
        self.problems = problems
        self.hooks = hooks
        """The user's beforeTool and afterTool hooks (agent/turn/hooks.py)."""
        self.gate = gate
        """Refuses calls the session's mode does not allow (agent/prompting/modes.py)."""
        self.ctx = ctx
        self.emit = emit
        self.approvals = ApprovalLine(approver, memory, emit)
        self._before_change = before_change
        self._change_gate: asyncio.Task[None] | None = None
        self._order: CallOrder[Executed] = CallOrder()

    def submit(self, call: ToolCall) -> asyncio.Task[Executed]:
        """Check `call` now and schedule it; returns the task that yields its result."""
        call = checked_call(call)
        plan = self._plan(call)
        if isinstance(plan, _Failed):
            failed = plan
            return self._order.schedule(None, call, self.ctx, lambda _: self._failed(call, failed))
        self.emit(ToolQueued(call, plan.description))
        return self._order.schedule(plan.tool, call, plan.ctx, lambda d: self._run(call, plan, d))

    def _plan(self, call: ToolCall) -> _Planned | _Failed:
        """Every check before a call may run: how it will run, or why it will not."""
        output = None
        if self.emit is not _ignore:  # no listener: no live output to redact and pass on
            output = RedactedOutput(
                self.ctx.secrets, lambda text: self.emit(ToolOutput(call.id, text))
            )
        ctx = dataclasses.replace(self.ctx, call_id=call.id, on_output=output, emit=self.emit)
        tool, failure = self._check(call)
        if failure is not None or tool is None:
            assert failure is not None
            return _Failed(failure)
        gated = self.gate(call, tool) if self.gate is not None else None
        if gated is not None:
            return _Failed(gated, "denied")
        verdict = permission_for(tool, call.params, ctx)
        refused = refusal(verdict)
        if refused is not None:
            return _Failed(refused, "denied")
        if missing := unknown_variables(call.params, ctx):
            return _Failed(ToolResult.fail(ErrorCode.INVALID_TOOL_INPUT, str(missing)))
        ticket = self.approvals.line_up(verdict)
        return _Planned(tool, ctx, output, ticket, _describe(tool, call))

    def _check(self, call: ToolCall) -> tuple[Tool | None, ToolResult | None]:
        if not call.ok:
            code = call.error_code or ErrorCode.MALFORMED_CALL
            return None, ToolResult.fail(code, str(call.error))
        found = self.toolkit.get(call.name)
        if found is None:
            message = self.toolkit.unknown_message(call.name)
            return None, ToolResult.fail(ErrorCode.UNKNOWN_TOOL, message)
        try:
            tool = found.loaded()  # a built-in tool's code, imported with its first call
        except Exception as exc:  # a broken installation: the call fails, the turn goes on
            message = f"{call.name} could not be loaded: {exc}"
            return None, ToolResult.fail(ErrorCode.TOOL_ERROR, message)
        problem = tool.validate(call.params)
        if problem:
            message = f"{tool.name}: {problem}"
            return tool, ToolResult.fail(ErrorCode.INVALID_TOOL_INPUT, message)
        return tool, None

    async def _failed(self, call: ToolCall, failed: _Failed) -> Executed:
        now = time.time()
        return self._done(Executed(call, failed.result, failed.decision, now, now))

    async def _run(
        self, call: ToolCall, plan: _Planned, deps: list[asyncio.Task[Executed]]
    ) -> Executed:
        tool, ctx = plan.tool, plan.ctx
        started = time.time()
        decision = "auto"
        try:
            if deps:
                await asyncio.wait(deps)
            # The editor's baseline before the user is asked: its preview lines go into the
            # buffer then, and the editor's linters would report them as the user's.
            await tool.prepare(call.params, ctx)  # a rename's edit, for the approval's diff
            check = self._problem_check(tool, call.params, ctx)
            if check is not None:
                await check.start()
            settled = await self.approvals.settle(call, tool, ctx, plan.ticket, plan.description)
            decision = settled.decision
            if settled.refused is not None:
                return self._done(Executed(call, settled.refused, decision, started, time.time()))
            params: dict[str, Any] = settled.params if settled.params is not None else call.params
            if settled.overrides:
                ctx = dataclasses.replace(ctx, overrides=settled.overrides)
            if self.hooks is not None:
                blocked = await self.hooks.before_tool(ctx.session_id, call)
                if blocked is not None:
                    failure = ToolResult.fail(
                        ErrorCode.PERMISSION_DENIED, f"blocked by a beforeTool hook: {blocked}"
                    )
                    return self._done(Executed(call, failure, "denied", started, time.time()))
            if tool.changes_files and self._before_change is not None:
                await self._checkpoint()
            await _load_buffers(tool, params, ctx)
            self.emit(ToolRunning(call))
            started = time.time()
            result = await run_journaled(
                call,
                ctx,
                plan.description,
                lambda c: self._execute(tool, params, c, plan),
                self.emit,
                check,
            )
            if settled.note:
                result = with_note(result, settled.note)
            if self.hooks is not None:
                result = await self.hooks.after_tool(ctx.session_id, call, result)
            return self._done(Executed(call, result, decision, started, time.time()))
        except asyncio.CancelledError:
            cancelled = ToolResult.fail(ErrorCode.CANCELLED, f"{tool.name} was cancelled")
            return self._done(Executed(call, cancelled, decision, started, time.time()))

    def _problem_check(
        self, tool: Tool, params: dict[str, Any], ctx: ToolContext
    ) -> ProblemCheck | None:
        """The diagnostics check of a call that changes files (docs/context.md)."""
        if self.problems is None or not tool.changes_files:
            return None
        keys = resources_of(tool, params, ctx)
        paths = [Path(k.removeprefix("file:")) for k in sorted(keys) if k.startswith("file:")]
        return ProblemCheck(self.problems, ctx.settings.diagnostics.wait_seconds, paths)

    async def _execute(
        self, tool: Tool, params: dict[str, Any], ctx: ToolContext, plan: _Planned
    ) -> ToolResult:
        try:
            return await run_with_secrets(tool, params, ctx)
        finally:
            if plan.output is not None:
                plan.output.flush()

    def _done(self, executed: Executed) -> Executed:
        seconds = max(0.0, executed.finished - executed.started)
        self.emit(ToolDone(executed.call, executed.result, executed.decision, seconds))
        return executed

    async def _checkpoint(self) -> None:
        if self._change_gate is None:
            assert self._before_change is not None
            self._change_gate = asyncio.ensure_future(self._before_change())
        await asyncio.shield(self._change_gate)

    async def finish(self) -> list[Executed]:
        """Wait for every submitted call; results in call order. Cancelling cancels all."""
        try:
            return list(await asyncio.gather(*self._order.tasks))
        except asyncio.CancelledError:
            await self.abort()
            raise

    async def abort(self) -> None:
        """Cancel every call still running and wait until they have stopped."""
        for task in self._order.tasks:
            task.cancel()
        await asyncio.gather(*self._order.tasks, return_exceptions=True)

    def finished(self) -> list[Executed]:
        """Results of the calls that completed (after a cancellation, for the record)."""
        return [t.result() for t in self._order.tasks if t.done() and not t.cancelled()]


async def _load_buffers(tool: Tool, params: dict[str, Any], ctx: ToolContext) -> None:
    """Let an editor that holds unsaved text (`BufferSource`) hand over the files this
    call names, so the tool reads the user's buffer; any failure leaves the disk's text."""
    editor: object = ctx.editor  # an Editor that may also be a BufferSource
    if not isinstance(editor, BufferSource):
        return
    try:
        keys = tool.resources(params, ctx)
    except Exception:
        return
    paths = [Path(k.removeprefix("file:")) for k in sorted(keys) if k.startswith("file:")]
    if paths:
        try:
            await editor.load(paths)
        except Exception:
            log.debug("the editor could not give its buffers of %s", paths, exc_info=True)


def with_note(result: ToolResult, note: str) -> ToolResult:
    """The result with what the user's answer said put first, wherever a dialect may show
    the model its text: `llm_content`, and `data` too (agentxml shows `data` when there is
    one: a sentence gets the note in front, an object a `note` entry)."""
    data = result.data
    if isinstance(data, str):
        data = f"{note}\n{data}"
    elif isinstance(data, dict):
        data = {"note": note, **data}
    return dataclasses.replace(result, llm_content=f"{note}\n{result.llm_content}", data=data)


def checked_call(call: ToolCall) -> ToolCall:
    """`call` as every layer may safely hold it: a call with text that is not valid
    Unicode (a lone surrogate from a JSON escape) fails with a precise error, and keeps
    only valid text, so no store, log or front end chokes on it."""
    problem = invalid_text_at(call.name, "name") or invalid_text_at(call.params, "params")
    if problem is None and invalid_text_at([call.id, call.raw, call.error or ""], "") is None:
        return call
    return dataclasses.replace(
        call,
        name=valid_text(call.name),
        params=valid_tree(call.params),
        id=valid_text(call.id),
        raw=valid_text(call.raw),
        error=valid_text(problem or call.error or "") or None,
        error_code=ErrorCode.MALFORMED_CALL if problem else call.error_code,
    )


def _describe(tool: Tool, call: ToolCall) -> str:
    try:
        return tool.describe(call.params)
    except Exception:
        return tool.name


async def run_calls(
    calls: list[ToolCall], toolkit: Toolkit, ctx: ToolContext, approver: Approver
) -> list[Executed]:
    """Run a complete list of calls (what `karyi exec` does)."""
    batch = CallBatch(toolkit, ctx, approver)
    for call in calls:
        batch.submit(call)
    return await batch.finish()
