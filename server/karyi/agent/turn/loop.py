"""The turn loop: model call → parse as it streams → run calls → results → again.

A turn starts with the user's message and ends when the model answers without tool
calls, when it gives `<final_answer>`, or when a limit stops it (max steps, the same
failing call repeated). Calls start the moment the parser completes them, while the
model is still streaming. Every step is an event; every message, call, decision and
usage figure is recorded in the session, so a cancelled or failed turn leaves a
consistent session behind.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections import Counter
from collections.abc import Sequence

from karyi.agent.events import (
    Error,
    EventStream,
    Mode,
    Notice,
    Step,
    TurnFinished,
    TurnStarted,
)
from karyi.agent.prompting.builtin_slash import expand
from karyi.agent.prompting.modes import PLAN, checked_mode, mode_prefix, offered, plan_refusal
from karyi.agent.prompting.system_prompt import SystemPromptCache, workspace_facts
from karyi.agent.review.permissions import PermissionMemory
from karyi.agent.session.compaction import compact
from karyi.agent.session.conversation import Conversation
from karyi.agent.session.todos import SessionTodos
from karyi.agent.turn.checkpointing import before_first_change
from karyi.agent.turn.cost import CostMeter
from karyi.agent.turn.executor import CallBatch, Executed
from karyi.agent.turn.hooks import Hooks
from karyi.agent.turn.last_command import LastCommand
from karyi.agent.turn.network_cut import without_cut_calls
from karyi.agent.turn.notices import OnceNotices
from karyi.agent.turn.pictures import picture_notice
from karyi.agent.turn.recording import record_step
from karyi.agent.turn.reply import Reply, ReplyReader
from karyi.agent.turn.spec import AgentSpec, TurnResult, TurnServices
from karyi.agent.turn.steering import SteerInbox
from karyi.agent.turn.user_message import MessageSources, build_user_message
from karyi.core.images import Image, checked_count
from karyi.core.text import valid_text
from karyi.llm.base import Message, Provider, ProviderError, Request
from karyi.protocol.base import Dialect
from karyi.protocol.native import Native
from karyi.tools.context import ToolContext
from karyi.tools.prompt import declarations


class Agent:
    """Runs turns of one conversation with one provider: the step loop, nothing else.

    A step asks the model, reads its reply as it streams (`reply.py`), runs the calls it
    makes (`executor.py`) and records the step (`recording.py`); the turn ends when the
    model answers without calls or a limit stops it. Cost is kept by `cost.py`, the
    user's message is built by `user_message.py`.
    """

    def __init__(
        self,
        spec: AgentSpec,
        provider: Provider,
        ctx: ToolContext,
        conversation: Conversation,
        services: TurnServices,
    ) -> None:
        self.spec = spec
        self.provider = provider
        self.ctx = ctx
        self.conversation = conversation
        self.approver = services.approver
        self.events = services.events or EventStream()
        self.checkpoints = services.checkpoints
        self.rules = services.rules or (lambda: "")
        self.changes = services.changes
        self.tool_source = services.tool_source
        self.problems = services.problems
        self.permissions = services.permissions or PermissionMemory(
            ctx.workspace.root, session_keys=conversation.approved
        )
        self._base_toolkit = spec.toolkit
        self._task: asyncio.Task[TurnResult] | None = None
        self._system = SystemPromptCache(ctx.secrets.redactor.redact if ctx.secrets else None)
        self._facts: dict[str, str] = {}
        self.notices = OnceNotices(self.events.emit)
        self._images: tuple[Image, ...] = ()
        """The pictures of the running turn's user message (docs/images.md)."""
        self.meter = CostMeter(conversation, self.notices)
        self.events.subscribe(self.meter.count_subagent)
        self.steers = SteerInbox(self.events.emit)
        """Messages the user sent into the running turn (agent/turn/steering.py)."""
        self.last_command = LastCommand(lambda: self.spec.toolkit)
        self.events.subscribe(self.last_command.on_event)
        if ctx.todos is None:
            ctx.todos = SessionTodos(conversation, self.events.emit)
        vault = ctx.secrets
        self.hooks = Hooks(
            ctx.settings,
            ctx.workspace.root,
            self.events.emit,
            (lambda text: vault.redactor.redact(text)) if vault is not None else (lambda t: t),
        )
        if vault is not None and self.events.redact is None:
            self.events.redact = lambda event: vault.redactor.redact_tree(event)

    @property
    def busy(self) -> bool:
        """True while a turn runs."""
        return self._task is not None and not self._task.done()

    def cancel(self) -> bool:
        """Cancel the running turn; True if there was one."""
        if self._task is None or self._task.done():
            return False
        self._task.cancel()
        return True

    @property
    def mode(self) -> str:
        """The session's mode: `plan` or `act` (docs/workflow.md#plan-mode)."""
        return self.conversation.mode

    def set_mode(self, mode: str, *, plan: str | None = None) -> None:
        """Switch the session to `mode` (UnknownMode for anything but plan and act).
        `plan`, when given, replaces the plan the next act turn carries (the user's
        edit of the model's plan; empty drops it). Between turns only."""
        mode = checked_mode(mode)
        if self.busy:
            raise RuntimeError(f"session {self.conversation.id} is running a turn: wait or cancel")
        conv = self.conversation
        if plan is not None:
            conv.plan = plan
        if conv.mode == mode and plan is None:
            return
        conv.mode = mode
        conv.save_state()
        self.events.emit(Mode(conv.id, mode, conv.plan))

    async def run(
        self, text: str, *, context: str = "", images: Sequence[Image] = ()
    ) -> TurnResult:
        """Run one turn for the user's `text` (plus optional editor context and pictures,
        checked by karyi.core.images)."""
        if self.busy:
            raise RuntimeError(f"session {self.conversation.id} is already running a turn")
        self._images = checked_count(images)
        turn_id = uuid.uuid4().hex[:10]
        text, context = valid_text(text), valid_text(context)  # what an editor or client sent
        mode, text = mode_prefix(text)
        if mode is not None:
            self.set_mode(mode)
        text = expand(text)
        self._task = asyncio.ensure_future(self._turn(turn_id, text, context))
        try:
            return await self._task
        except asyncio.CancelledError:
            result = self._finish(turn_id, "cancelled", None, 0)  # said and stored either way
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            return result

    # -- the turn ------------------------------------------------------------------------

    async def _turn(self, turn_id: str, text: str, context: str) -> TurnResult:
        result = await self._turn_steps(turn_id, text, context)
        if self.hooks.hooks["turnEnd"]:
            payload = {
                "sessionId": self.conversation.id,
                "turnId": turn_id,
                "stopReason": result.stop_reason,
                "finalAnswer": result.final_answer,
            }
            await self.hooks.run("turnEnd", payload)
        return result

    async def _begin(self, turn_id: str, text: str, context: str) -> str | None:
        """Start the turn: costs, facts, tools, notices, the user's message in the
        conversation. None: a `userPrompt` hook stopped it (said already)."""
        conv = self.conversation
        self.meter.start(self.provider.label, self.ctx.settings)
        self._facts = await asyncio.to_thread(workspace_facts, self.ctx.workspace)
        await self._load_tools()
        self._system.clear()
        if conv.store is not None:
            conv.store.start_turn(conv.id, turn_id, text, context)
        conv.name(text)
        self.events.emit(TurnStarted(conv.id, turn_id, text, conv.mode))
        shell = self.ctx.shell
        self.notices.say("sandbox", shell.sandbox_notice() if shell is not None else None)
        self.notices.say("watching", self.ctx.workspace.documents.watch_notice)
        self.notices.say("recovery", self.ctx.workspace.take_recovered())
        self.notices.say("storage", conv.not_saved)
        picture_notice(self.provider, self._images, self.events.emit)
        sources = MessageSources(self.ctx, self.problems, self.last_command, self.hooks)
        message = await build_user_message(text, context, conv, turn_id, sources)
        if message.blocked is not None:
            said = f"A userPrompt hook stopped this message: {message.blocked}"
            self.events.emit(Error("hook", said))
            return None
        conv.add(turn_id, Message("user", self._with_notices(message.body), images=self._images))
        return turn_id

    async def _turn_steps(self, turn_id: str, text: str, context: str) -> TurnResult:
        if await self._begin(turn_id, text, context) is None:
            return self._finish(turn_id, "blocked", None, 0)
        failures: Counter[str] = Counter()
        for step in range(1, self.spec.max_steps + 1):
            reply, executed, error = await self._step(turn_id, step)
            if error is not None and not executed and not reply.discarded:
                self.events.emit(Error(error.kind, error.message))
                return self._finish(turn_id, "error", None, step)
            if not reply.calls and not reply.discarded:
                answer = reply.channel("answer").strip() or reply.channel("text").strip()
                reason = "final_answer" if reply.channel("answer") else "end_turn"
                return self._finish(turn_id, reason, answer, step, reply.finish)
            stop = self._stop_after(executed, failures, error)
            if stop is not None:
                reason, kind, message = stop
                self.events.emit(Error(kind, message))
                return self._finish(turn_id, reason, None, step)
        message = (
            f"Stopped after {self.spec.max_steps} model calls (maxSteps). "
            "Say 'continue' to let the agent go on."
        )
        self.events.emit(Error("max_steps", message))
        return self._finish(turn_id, "max_steps", None, self.spec.max_steps)

    def _stop_after(
        self, executed: list[Executed], failures: Counter[str], error: ProviderError | None
    ) -> tuple[str, str, str] | None:
        """(stop reason, error kind, message) when the turn must stop after a step that
        ran calls: over the cost limit, the same failing call repeated, or a provider
        error that is final."""
        over = self.meter.over_budget()
        if over is not None:
            return "cost_limit", "cost_limit", over
        for e in executed:
            if not e.result.success:
                key = f"{e.call.name}:{json.dumps(e.call.params, sort_keys=True)}"
                failures[f"{key}:{e.result.error.code if e.result.error else ''}"] += 1
        worst = max(failures.values(), default=0)
        if worst >= self.spec.mistake_limit:
            return (
                "mistake_limit",
                "mistake_limit",
                (
                    f"Stopped: the model repeated the same failing call {worst} times. "
                    "Rephrase the task or fix the cause, then continue."
                ),
            )
        if error is not None and not error.retryable:
            return "error", error.kind, error.message
        return None

    async def _load_tools(self) -> None:
        """Add the run-time tools to the toolkit; each warning about them is told once."""
        if self.tool_source is None:
            return
        try:
            tools, warnings = await self.tool_source()
        except Exception as exc:  # the built-in tools still work without them
            tools, warnings = [], [f"run-time tools unavailable: {type(exc).__name__}: {exc}"]
        self.spec.toolkit = self._base_toolkit.extended(tools)
        for warning in warnings:
            self.notices.say("tools", warning)

    def _request(self, turn_id: str) -> Request:
        """The next model request: the system prompt and the history, compacted to fit."""
        conv, spec = self.conversation, self.spec
        system = self._system.get(
            instructions=spec.instructions,
            dialect=spec.dialect,
            toolkit=spec.toolkit,
            workspace=self.ctx.workspace,
            mode=conv.mode,
            rules=self.rules(),
            facts=self._facts,
        )
        self.steers.deliver(conv, turn_id)
        history, note = compact(conv.history, self.provider.context_window, system)
        if note is not None:
            conv.replace(history)
            conv.add(turn_id, Message("user", note))
            self.events.emit(Notice("compaction", note))
        native = isinstance(spec.dialect, Native)
        return Request(
            messages=[Message("system", system), *conv.for_request()],
            tools=declarations(offered(spec.toolkit, conv.mode)) if native else (),
        )

    async def _step(
        self, turn_id: str, step: int
    ) -> tuple[Reply, list[Executed], ProviderError | None]:
        conv, spec = self.conversation, self.spec
        request = self._request(turn_id)
        self.events.emit(Step(step, self.provider.label))
        batch = CallBatch(
            spec.toolkit,
            self.ctx,
            self.approver,
            emit=self.events.emit,
            before_change=before_first_change(self.checkpoints, conv, turn_id, self.events.emit),
            memory=self.permissions,
            problems=self.problems,
            gate=plan_refusal if conv.mode == PLAN else None,
            hooks=self.hooks if self.hooks else None,
        )
        parser = spec.dialect.parser(spec.toolkit.schema, conv.dialect_state)
        reader = ReplyReader(parser, batch, self.meter, self.events.emit)
        error: ProviderError | None = None
        try:
            try:
                async for event in self.provider.stream(request):
                    reader.on_stream(event)
            except ProviderError as exc:
                error = exc
            closing = parser.close()
            reader.on_parsed(without_cut_calls(closing, error, reader.reply, self.events.emit))
            executed = await batch.finish()
        except asyncio.CancelledError:
            reader.stop()
            await batch.abort()
            self._record(turn_id, reader.reply, batch.finished(), "cancelled by the user")
            raise
        cut = None
        if error is not None and (reader.reply.text or reader.reply.calls):
            cut = f"cut off by a provider error ({error.kind}: {error.message})"
        self._record(turn_id, reader.reply, executed, cut)
        return reader.reply, executed, error

    def _record(
        self, turn_id: str, reply: Reply, executed: list[Executed], cut: str | None
    ) -> None:
        dialect: Dialect = self.spec.dialect
        record_step(
            self.conversation,
            turn_id,
            reply,
            executed,
            dialect,
            native=isinstance(dialect, Native),
            cut=cut,
            with_notices=self._with_notices,
        )

    def _with_notices(self, text: str) -> str:
        """`text` with a note of the files that changed on disk since the model read them."""
        if self.changes is None:
            return text
        changed = self.changes(self.conversation.id)
        if not changed:
            return text
        note = "Note: these files changed since you last read them: " + "; ".join(changed)
        self.events.emit(Notice("changed_files", note))
        return f"{text}\n\n{note}"

    def _finish(
        self, turn_id: str, reason: str, answer: str | None, steps: int, finish: str = ""
    ) -> TurnResult:
        conv = self.conversation
        tokens_in, tokens_out, cached = self.meter.tokens
        turn_cost, session_cost = self.meter.costs()
        result = TurnResult(
            turn_id, reason, answer, steps, tokens_in, tokens_out, cached, turn_cost, finish
        )
        if conv.mode == PLAN and answer:
            conv.plan = answer
            conv.save_state()
        if conv.store is not None:
            conv.store.finish_turn(conv.id, turn_id, reason, tokens_in, tokens_out)
        conv.save_state()
        self.notices.say("storage", conv.not_saved)  # a write that failed during the turn
        self.events.emit(
            TurnFinished(
                turn_id,
                reason,
                answer,
                tokens_in,
                tokens_out,
                steps,
                cached,
                turn_cost,
                session_cost,
            )
        )
        return result
