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
import dataclasses
import json
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from karyi.agent.diagnostics.problems import ProblemSource
from karyi.agent.events import (
    Event,
    EventStream,
    ModeChanged,
    Notice,
    StepStarted,
    SubagentEvent,
    TextDelta,
    ToolDone,
    ToolPending,
    TurnError,
    TurnFinished,
    TurnStarted,
    UsageUpdate,
)
from karyi.agent.prompting.builtin_slash import expand
from karyi.agent.prompting.mentions import MentionSources
from karyi.agent.prompting.mentions import expand as expand_mentions
from karyi.agent.prompting.modes import (
    PLAN,
    checked_mode,
    mode_prefix,
    offered,
    plan_refusal,
    with_plan,
)
from karyi.agent.prompting.slash_commands import expand_command, load_commands
from karyi.agent.prompting.system_prompt import system_prompt, template, workspace_facts
from karyi.agent.review.approval import Approver
from karyi.agent.review.permissions import PermissionMemory
from karyi.agent.session.checkpoints import Checkpoints
from karyi.agent.session.compaction import RESULTS, compact
from karyi.agent.session.conversation import Conversation
from karyi.agent.session.store import ToolCallRecord
from karyi.agent.session.todos import SessionTodos
from karyi.agent.turn.executor import CallBatch, Executed, checked_call
from karyi.agent.turn.hooks import Hooks
from karyi.agent.turn.pictures import picture_notice
from karyi.core.images import Image, checked_count
from karyi.core.text import valid_text
from karyi.llm.base import (
    Finish,
    Message,
    NativeCall,
    Provider,
    ProviderError,
    ReasoningBlock,
    Request,
    Retrying,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ToolCallChunk,
    ToolCallEnd,
    Usage,
)
from karyi.llm.prices import Price, parse_prices, price_of
from karyi.protocol.base import Dialect, StreamParser
from karyi.protocol.calls import CallReady, CallStarted, ParseEvent, ToolCall
from karyi.protocol.calls import TextDelta as ParsedText
from karyi.protocol.native import Native, NativeParser
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext
from karyi.tools.prompt import declarations
from karyi.tools.registry import Toolkit

ToolSource = Callable[[], Awaitable[tuple[list[Tool], list[str]]]]
"""Tools that appear at run time (discovery, MCP servers) and warnings about them."""


@dataclass
class AgentSpec:
    """Who the agent is: its instructions, dialect, tools and limits."""

    instructions: str
    dialect: Dialect
    toolkit: Toolkit
    name: str = "default"
    max_steps: int = 50
    mistake_limit: int = 3


@dataclass(frozen=True)
class TurnResult:
    """How a turn ended."""

    turn_id: str
    stop_reason: str
    """end_turn | final_answer | max_steps | mistake_limit | cost_limit | blocked (a
    userPrompt hook) | cancelled | error"""
    final_answer: str | None
    steps: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int = 0
    """Of the input tokens, how many were read from the provider's prompt cache."""
    cost: float | None = None
    """What the turn's model calls cost in USD (None: the model has no price)."""
    finish: str = ""
    """Why the last model reply ended (`stop`, `length`, `refusal`, `content_filter`, …):
    a front end tells a reply cut by the token limit or refused from a finished one."""


@dataclass
class _Reply:
    """What one model call produced."""

    text: list[str] = field(default_factory=list)
    channels: dict[str, list[str]] = field(default_factory=dict)
    calls: list[ToolCall] = field(default_factory=list)
    finish: str = ""
    reasoning: list[Mapping[str, Any]] = field(default_factory=list)

    def channel(self, name: str) -> str:
        return "".join(self.channels.get(name, []))


def alternating(messages: Sequence[Message]) -> list[Message]:
    """The history as a request may carry it: a user message that follows another (the
    turn before failed without a reply, or stopped after tool results) joins it, so the
    roles alternate as every provider and chat template expects. The store keeps both."""
    out: list[Message] = []
    for message in messages:
        last = out[-1] if out else None
        if (
            last is not None
            and message.role == "user" == last.role
            and not message.tool_call_id
            and not last.tool_call_id
        ):
            joined = f"{last.content}\n\n{message.content}"
            images = last.images + message.images
            out[-1] = dataclasses.replace(last, content=joined, name=None, images=images)
        else:
            out.append(message)
    return out


class Agent:
    """Runs turns of one conversation with one provider."""

    def __init__(
        self,
        spec: AgentSpec,
        provider: Provider,
        ctx: ToolContext,
        conversation: Conversation,
        *,
        approver: Approver,
        events: EventStream | None = None,
        checkpoints: Checkpoints | None = None,
        rules: Callable[[], str] | None = None,
        changes: Callable[[str], list[str]] | None = None,
        permissions: PermissionMemory | None = None,
        tool_source: ToolSource | None = None,
        problems: ProblemSource | None = None,
    ) -> None:
        self.spec = spec
        self.problems = problems
        self.tool_source = tool_source
        self._base_toolkit = spec.toolkit
        self._noticed: set[str] = set()
        self.provider = provider
        self.ctx = ctx
        self.conversation = conversation
        self.approver = approver
        self.events = events or EventStream()
        if ctx.todos is None:
            ctx.todos = SessionTodos(conversation, self.events.emit)
        vault = ctx.secrets
        self.hooks = Hooks(
            ctx.settings,
            ctx.workspace.root,
            self.events.emit,
            (lambda text: vault.redactor.redact(text)) if vault is not None else (lambda t: t),
        )
        if ctx.secrets is not None and self.events.redact is None:
            secrets = ctx.secrets
            self.events.redact = lambda event: secrets.redactor.redact_tree(event)
        self.checkpoints = checkpoints
        self.rules = rules or (lambda: "")
        self.changes = changes
        self.permissions = permissions or PermissionMemory(
            ctx.workspace.root, session_keys=conversation.approved
        )
        self._task: asyncio.Task[TurnResult] | None = None
        self._usage = [0, 0, 0]
        self._price: Price | None = None
        self._cost_before = 0.0
        self._subagent_cost = 0.0
        """What the subagents this turn ran cost (their turns' costs, at their prices)."""
        self.events.subscribe(self._count_subagent_cost)
        self._system: tuple[str, str] = ("", "")  # (rules and mode it was built with, prompt)
        self._facts: dict[str, str] = {}
        self._last_command = ""
        self.events.subscribe(self._note_command)
        self._images: tuple[Image, ...] = ()
        """The pictures of the running turn's user message (docs/images.md)."""

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
        self.events.emit(ModeChanged(conv.id, mode, conv.plan))

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

    async def _turn_steps(self, turn_id: str, text: str, context: str) -> TurnResult:
        conv = self.conversation
        self._usage = [0, 0, 0]
        self._start_costing()
        self._facts = await asyncio.to_thread(workspace_facts, self.ctx.workspace)
        await self._load_tools()
        self._system = ("", "")
        if conv.store is not None:
            conv.store.start_turn(conv.id, turn_id)
        conv.name(text)
        self.events.emit(TurnStarted(conv.id, turn_id, text, conv.mode))
        self._notice_sandbox()
        self._notice_watching()
        picture_notice(self.provider, self._images, self.events.emit)
        asked = await self._expanded(text)
        body = f"{asked}\n\n{context}".strip() if context else asked
        sources = MentionSources(self.ctx, self.problems, lambda: self._last_command)
        if mentioned := await expand_mentions(text, sources):
            body = f"{body}\n\n{mentioned}"
        if conv.mode != PLAN and conv.plan:
            body, conv.plan = with_plan(body, conv.plan), ""
        if self.hooks.hooks["userPrompt"]:
            payload = {"sessionId": conv.id, "turnId": turn_id, "prompt": text, "mode": conv.mode}
            said = await self.hooks.run("userPrompt", payload)
            if said.blocked is not None:
                self.events.emit(
                    TurnError("hook", f"A userPrompt hook stopped this message: {said.blocked}")
                )
                return self._finish(turn_id, "blocked", None, 0)
            if said.output:
                body = f"{body}\n\n[userPrompt hook output]\n{said.output}"
        conv.add(turn_id, Message("user", self._with_notices(body), images=self._images))
        failures: Counter[str] = Counter()
        for step in range(1, self.spec.max_steps + 1):
            reply, executed, error = await self._step(turn_id, step)
            if error is not None and not executed:
                self.events.emit(TurnError(error.kind, error.message))
                return self._finish(turn_id, "error", None, step)
            if not reply.calls:
                answer = reply.channel("answer").strip() or reply.channel("text").strip()
                reason = "final_answer" if reply.channel("answer") else "end_turn"
                return self._finish(turn_id, reason, answer, step, reply.finish)
            over = self._over_budget()
            if over is not None:
                self.events.emit(TurnError("cost_limit", over))
                return self._finish(turn_id, "cost_limit", None, step)
            for e in executed:
                if not e.result.success:
                    key = f"{e.call.name}:{json.dumps(e.call.params, sort_keys=True)}"
                    failures[f"{key}:{e.result.error.code if e.result.error else ''}"] += 1
            worst = max(failures.values(), default=0)
            if worst >= self.spec.mistake_limit:
                message = (
                    f"Stopped: the model repeated the same failing call {worst} times. "
                    "Rephrase the task or fix the cause, then continue."
                )
                self.events.emit(TurnError("mistake_limit", message))
                return self._finish(turn_id, "mistake_limit", None, step)
            if error is not None and not error.retryable:
                self.events.emit(TurnError(error.kind, error.message))
                return self._finish(turn_id, "error", None, step)
        message = (
            f"Stopped after {self.spec.max_steps} model calls (maxSteps). "
            "Say 'continue' to let the agent go on."
        )
        self.events.emit(TurnError("max_steps", message))
        return self._finish(turn_id, "max_steps", None, self.spec.max_steps)

    async def _expanded(self, text: str) -> str:
        """`/NAME args` as the custom command's prompt (agent/prompting/slash_commands.py);
        the user's words as they typed them stay in the transcript."""
        if not text.lstrip().startswith("/"):
            return text
        commands = await asyncio.to_thread(load_commands, self.ctx.workspace.root)
        return expand_command(text, commands)

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
            if warning not in self._noticed:
                self._noticed.add(warning)
                self.events.emit(Notice("tools", warning))

    def _note_command(self, event: object) -> None:
        """Keep the last command's output for `@terminal` (agent/prompting/mentions.py)."""
        if not isinstance(event, ToolDone):
            return
        tool = self.spec.toolkit.get(event.call.name)
        params = event.call.params
        if (
            tool is not None
            and tool.runs_programs
            and ("command" in params or tool.name in ("input", "ctrl"))
        ):
            shown = params.get("command") or f"{tool.name} {params}"
            self._last_command = f"$ {shown}\n{event.result.llm_content}"

    def _notice_sandbox(self) -> None:
        """Tell the user, once per session, that commands run without the OS sandbox."""
        shell = self.ctx.shell
        note = shell.sandbox_notice() if shell is not None else None
        if note is not None and note not in self._noticed:
            self._noticed.add(note)
            self.events.emit(Notice("sandbox", note))

    def _notice_watching(self) -> None:
        """Tell the user, once per session, that file watching fell back to on-demand checks."""
        note = self.ctx.workspace.documents.watch_notice
        if note is not None and note not in self._noticed:
            self._noticed.add(note)
            self.events.emit(Notice("watching", note))

    async def _step(
        self, turn_id: str, step: int
    ) -> tuple[_Reply, list[Executed], ProviderError | None]:
        conv = self.conversation
        spec = self.spec
        native = isinstance(spec.dialect, Native)
        system = self._system_prompt()
        history, note = compact(conv.history, self.provider.context_window, system)
        if note is not None:
            conv.replace(history)
            conv.add(turn_id, Message("user", note))
            self.events.emit(Notice("compaction", note))
        request = Request(
            messages=[Message("system", system), *alternating(conv.messages)],
            tools=declarations(offered(spec.toolkit, conv.mode)) if native else (),
        )
        self.events.emit(StepStarted(step, self.provider.label))
        parser = spec.dialect.parser(spec.toolkit.schema, conv.dialect_state)
        batch = CallBatch(
            spec.toolkit,
            self.ctx,
            self.approver,
            emit=self.events.emit,
            before_change=self._checkpoint_hook(turn_id),
            memory=self.permissions,
            problems=self.problems,
            gate=plan_refusal if conv.mode == PLAN else None,
            hooks=self.hooks if self.hooks else None,
        )
        reply = _Reply()
        error: ProviderError | None = None
        try:
            try:
                async for event in self.provider.stream(request):
                    self._on_stream(event, parser, batch, reply)
            except ProviderError as exc:
                error = exc
            self._on_parsed(parser.close(), batch, reply)
            executed = await batch.finish()
        except asyncio.CancelledError:
            await batch.abort()
            self._record(turn_id, reply, batch.finished(), native, cut="cancelled by the user")
            raise
        cut = None
        if error is not None and (reply.text or reply.calls):
            cut = f"cut off by a provider error ({error.kind}: {error.message})"
        self._record(turn_id, reply, executed, native, cut=cut)
        return reply, executed, error

    def _system_prompt(self) -> str:
        mode = self.conversation.mode
        rules = self.rules()
        key = f"{mode}\n{rules}"
        if not self._system[1] or self._system[0] != key:
            spec = self.spec
            instructions = spec.instructions
            if mode == PLAN:
                instructions = f"{instructions}\n\n{template('plan_mode').safe_substitute()}"
            prompt = system_prompt(
                instructions=instructions,
                dialect=spec.dialect,
                toolkit=offered(spec.toolkit, mode),
                workspace=self.ctx.workspace,
                rules=rules,
                facts=self._facts,
            )
            self._system = (key, prompt)
        return self._system[1]

    def _on_stream(
        self, event: StreamEvent, parser: StreamParser, batch: CallBatch, reply: _Reply
    ) -> None:
        if isinstance(event, TextChunk):
            text = valid_text(event.text)
            reply.text.append(text)
            self._on_parsed(parser.feed(text), batch, reply)
        elif isinstance(event, ThinkingChunk):
            thought = valid_text(event.text)
            reply.channels.setdefault("thinking", []).append(thought)
            self.events.emit(TextDelta(thought, "thinking"))
        elif isinstance(event, ReasoningBlock):
            reply.reasoning.append(event.block)
        elif isinstance(event, ToolCallChunk) and isinstance(parser, NativeParser):
            self._on_parsed(
                parser.feed_call(
                    event.slot,
                    call_id=valid_text(event.id) if event.id else event.id,
                    name=valid_text(event.name) if event.name else event.name,
                    arguments=valid_text(event.arguments),
                ),
                batch,
                reply,
            )
        elif isinstance(event, ToolCallEnd) and isinstance(parser, NativeParser):
            self._on_parsed(parser.end_call(event.slot), batch, reply)
        elif isinstance(event, Usage):
            self._usage[0] += event.input_tokens
            self._usage[1] += event.output_tokens
            self._usage[2] += event.cache_read_tokens
            turn_cost, session_cost = self._costs()
            tokens_in, tokens_out, cached = self._usage
            self.events.emit(UsageUpdate(tokens_in, tokens_out, cached, turn_cost, session_cost))
        elif isinstance(event, Finish):
            reply.finish = event.reason
        elif isinstance(event, Retrying):
            self.events.emit(
                Notice(
                    "retry",
                    f"retrying in {event.delay:.1f}s (attempt {event.attempt}): {event.error}",
                )
            )

    def _on_parsed(self, events: list[ParseEvent], batch: CallBatch, reply: _Reply) -> None:
        for ev in events:
            if isinstance(ev, ParsedText):
                reply.channels.setdefault(ev.channel, []).append(ev.text)
                self.events.emit(TextDelta(ev.text, ev.channel))
            elif isinstance(ev, CallStarted):
                self.events.emit(ToolPending(ev.index, valid_text(ev.name)))
            elif isinstance(ev, CallReady):
                call = checked_call(ev.call)
                reply.calls.append(call)
                batch.submit(call)

    def _record(
        self,
        turn_id: str,
        reply: _Reply,
        executed: list[Executed],
        native: bool,
        *,
        cut: str | None,
    ) -> None:
        conv = self.conversation
        text = "".join(reply.text)
        reasoning = tuple(reply.reasoning)
        if cut:
            text += f"\n[this reply was {cut}]"
        if native:
            calls = tuple(
                NativeCall(c.id, c.name, c.raw or json.dumps(c.params)) for c in reply.calls
            )
            if text or calls:
                message = Message("assistant", text, tool_calls=calls, reasoning=reasoning)
                conv.add(turn_id, message)
            done = {e.call.id: e for e in executed}
            for c in reply.calls:
                e = done.get(c.id)
                content = e.result.llm_content if e else "not run: the turn was interrupted"
                conv.add(
                    turn_id,
                    Message(
                        "tool",
                        content,
                        tool_call_id=c.id,
                        name=c.name,
                        is_error=not (e and e.result.success),
                    ),
                )
        else:
            if text:
                conv.add(turn_id, Message("assistant", text, reasoning=reasoning))
            if reply.calls:
                outcomes = [e.outcome() for e in executed]
                rendered = self.spec.dialect.render_results(outcomes)
                missing = len(reply.calls) - len(executed)
                if missing:
                    rendered += f"\n[{missing} call(s) were not run: the turn was interrupted]"
                conv.add(turn_id, Message("user", self._with_notices(rendered), name=RESULTS))
        if conv.store is not None:
            for e in executed:
                conv.store.record_call(
                    conv.id,
                    turn_id,
                    ToolCallRecord(
                        turn_id,
                        e.call.id,
                        e.call.name,
                        e.call.params,
                        e.decision,
                        e.result.success,
                        e.result.error.code if e.result.error else None,
                        e.result.to_dict(),
                    ),
                    e.started,
                    e.finished,
                )
        conv.save_state()

    def _with_notices(self, text: str) -> str:
        if self.changes is None:
            return text
        changed = self.changes(self.conversation.id)
        if not changed:
            return text
        note = "Note: these files changed since you last read them: " + "; ".join(changed)
        self.events.emit(Notice("changed_files", note))
        return f"{text}\n\n{note}"

    def _checkpoint_hook(self, turn_id: str) -> Callable[[], Awaitable[None]] | None:
        checkpoints = self.checkpoints
        if checkpoints is None:
            return None
        conv = self.conversation

        async def snapshot() -> None:
            if conv.store is not None and any(
                t["turn_id"] == turn_id and t["checkpoint"] for t in conv.store.turns(conv.id)
            ):
                return
            label = f"before turn {turn_id}: {conv.title}"
            try:
                cp = await asyncio.to_thread(checkpoints.snapshot, label)
            except Exception as exc:  # a failed snapshot must not stop the work, but is said
                self.events.emit(Notice("checkpoint", f"could not take a checkpoint: {exc}"))
                return
            if conv.store is not None:
                conv.store.set_checkpoint(conv.id, turn_id, cp.id)
            self.events.emit(Notice("checkpoint", f"checkpoint {cp.id[:12]} taken before changes"))

        return snapshot

    # -- cost (docs/workflow.md#cost) ------------------------------------------------------

    def _start_costing(self) -> None:
        """Price the model for this turn; say once when a cost limit cannot apply."""
        settings = self.ctx.settings
        self._price = price_of(self.provider.label, parse_prices(settings.prices))
        self._cost_before = self.conversation.cost
        self._subagent_cost = 0.0
        limit = settings.max_cost_per_turn
        if self._price is None and limit is not None:
            note = (
                f"no price is known for {self.provider.label}: agent.maxCostPerTurn cannot "
                "apply; set its prices in settings `prices` (docs/workflow.md#cost)"
            )
            if note not in self._noticed:
                self._noticed.add(note)
                self.events.emit(Notice("cost", note))

    def _costs(self) -> tuple[float | None, float | None]:
        """(the turn's cost so far, the session's), both None without a price; the
        session's total is kept in the conversation."""
        if self._price is None:
            return None, None
        turn = self._price.cost(self._usage[0], self._usage[1], self._usage[2])
        turn += self._subagent_cost
        self.conversation.cost = self._cost_before + turn
        return turn, self.conversation.cost

    def _count_subagent_cost(self, event: Event) -> None:
        """A direct subagent's finished turn adds its cost to this turn's (a subagent's
        own subagents are in its cost already)."""
        inner = event.event if isinstance(event, SubagentEvent) else None
        if isinstance(inner, TurnFinished) and inner.turn_cost:
            self._subagent_cost += inner.turn_cost

    def _over_budget(self) -> str | None:
        """Why the turn must stop at its cost limit (None: it may go on)."""
        limit = self.ctx.settings.max_cost_per_turn
        turn, _ = self._costs()
        if limit is None or turn is None or turn <= limit:
            return None
        return (
            f"Stopped: this turn cost ${turn:.4f}, over agent.maxCostPerTurn (${limit:g}). "
            "The work so far is kept; say 'continue' to let the agent go on."
        )

    def _finish(
        self, turn_id: str, reason: str, answer: str | None, steps: int, finish: str = ""
    ) -> TurnResult:
        conv = self.conversation
        tokens_in, tokens_out, cached = self._usage
        turn_cost, session_cost = self._costs()
        result = TurnResult(
            turn_id, reason, answer, steps, tokens_in, tokens_out, cached, turn_cost, finish
        )
        if conv.mode == PLAN and answer:
            conv.plan = answer
            conv.save_state()
        if conv.store is not None:
            conv.store.finish_turn(conv.id, turn_id, reason, tokens_in, tokens_out)
        conv.save_state()
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
