"""Subagents (docs/extensions.md): agents from settings `agents`, run by `call_subagent`.

A subagent gets its own instructions, model (default: the parent's), dialect (default:
the settings'), toolkit (registry references) and a fresh conversation, and runs to its
final answer, which is the call's result. It shares with its parent what belongs to the
session: the approver (its calls still ask the user), "allow always" memory, artifacts,
the secure variables, the workspace. Its events reach the parent's stream wrapped in
`Subagent`s with call ids scoped by the parent call, so front ends can show and
answer them. Cancelling the parent's call cancels the subagent. A subagent may call
subagents too, down to `MAX_DEPTH` levels.

Its conversation is not a session of its own: the parent's record of the call keeps the
answer and the list of calls the subagent made (`data.calls`).

Built-in agents: `explore` (read-only code questions), and the research agents `search` (web
search) and `crawl` (page reading), both keeping notes in artifacts. Settings may
override any of their keys, disable one (`"enabled": false`) or add agents.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Protocol

from karyi.agent.events import Error, Event, EventStream, Subagent, ToolDone
from karyi.agent.review.approval import ApprovalRequest, Approver, Decision
from karyi.agent.review.permissions import PermissionMemory
from karyi.agent.session.checkpoints import Checkpoints
from karyi.agent.session.conversation import Conversation
from karyi.agent.subagent_defs import SubagentDef, definitions
from karyi.agent.turn.loop import Agent
from karyi.agent.turn.spec import AgentSpec, TurnServices
from karyi.core.errors import ErrorCode, ToolFailure
from karyi.llm.base import Provider, ProviderError
from karyi.llm.factory import create_provider
from karyi.protocol import get_dialect
from karyi.protocol.calls import ToolCall
from karyi.settings import Settings
from karyi.tools.base import Tool
from karyi.tools.context import SubagentAnswer, ToolContext
from karyi.tools.registry import Toolkit, ToolLookupError, ToolRegistry

MAX_DEPTH = 2
"""How deep subagents may nest: the top agent's subagents are depth 1."""


@dataclass
class _Record:
    """What a subagent did, gathered from its events."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def note(self, event: Event) -> None:
        if isinstance(event, ToolDone):
            c = event.call
            self.calls.append({"name": c.name, "params": c.params, "success": event.result.success})
        elif isinstance(event, Error):
            self.errors.append(event.message)


def build_toolkit(registry: ToolRegistry, spec: SubagentDef, *, nested: bool) -> Toolkit:
    """The agent's tools: its profile's, then each reference (`profile.name`, `profile.*`,
    or a bare name, looked up in its profile first). Raises ToolFailure naming the key."""
    tools: dict[str, Tool] = {}
    try:
        if spec.profile:
            tools.update(registry.profile(spec.profile))
        for ref in spec.tools:
            for tool in _lookup(registry, ref, spec.profile):
                tools[tool.name] = tool
    except ToolLookupError as exc:
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT, f"settings agents.{spec.name}: {exc}"
        ) from None
    if not nested:
        tools.pop("call_subagent", None)
    if not tools:
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT,
            f"settings agents.{spec.name}: the agent has no tools (set `tools` or `profile`)",
        )
    return Toolkit(spec.name, tools)


def _lookup(registry: ToolRegistry, ref: str, profile: str | None) -> list[Tool]:
    head, dot, rest = ref.partition(".")
    if dot and rest == "*":
        return list(registry.profile(head).values())
    if not dot and profile and ref in registry.profile(profile):
        return [registry.profile(profile)[ref]]
    return [registry.find(ref)]


def _scoped(call: ToolCall, scope: str) -> ToolCall:
    return dataclasses.replace(call, id=f"{scope}/{call.id}")


def scoped_event(event: Event, scope: str) -> Event:
    """`event` with the call ids inside it prefixed by `scope`."""
    if isinstance(event, Subagent):
        return dataclasses.replace(event, call_id=f"{scope}/{event.call_id}")
    call = getattr(event, "call", None)
    if isinstance(call, ToolCall):
        changed: Event = dataclasses.replace(event, call=_scoped(call, scope))  # type: ignore[type-var]
        return changed
    return event


class AgentHome(Protocol):
    """What a subagent takes from the runtime it runs in (`agent.runtime.Runtime`)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def registry(self) -> ToolRegistry: ...
    @property
    def checkpoints(self) -> Checkpoints: ...


class Subagents:
    """Runs the settings' agents for one session (the `SubagentRunner` of its tools)."""

    def __init__(
        self,
        runtime: AgentHome,
        *,
        provider: Provider,
        approver: Approver,
        permissions: PermissionMemory,
        depth: int = 0,
    ) -> None:
        self.runtime = runtime
        self.provider = provider
        self.approver = approver
        self.permissions = permissions
        self.depth = depth

    def agents(self) -> dict[str, str]:
        """See `SubagentRunner.agents`."""
        return {n: d.description for n, d in definitions(self.runtime.settings).items()}

    async def run(self, name: str, task: str, ctx: ToolContext) -> SubagentAnswer:
        """See `SubagentRunner.run`."""
        if self.depth >= MAX_DEPTH:
            raise ToolFailure(
                ErrorCode.PERMISSION_DENIED,
                f"subagents may nest only {MAX_DEPTH} levels deep; do this task yourself",
            )
        spec = definitions(self.runtime.settings)[name]
        toolkit = build_toolkit(self.runtime.registry, spec, nested=self.depth + 1 < MAX_DEPTH)
        provider, owned = self._provider(spec)
        scope = ctx.call_id or name
        conversation = Conversation(f"{ctx.session_id}-{name}-{scope}")
        record = _Record()
        events = EventStream()
        events.subscribe(record.note)
        events.subscribe(lambda event: self._forward(event, spec.name, scope, ctx))
        child = self._agent(spec, toolkit, provider, conversation, events, ctx, scope)
        try:
            result = await child.run(task)
        finally:
            if owned:
                await provider.aclose()
        return SubagentAnswer(
            name,
            result.final_answer,
            result.stop_reason,
            result.steps,
            record.calls,
            result.input_tokens,
            result.output_tokens,
            record.errors[-1] if record.errors else "",
        )

    def _provider(self, spec: SubagentDef) -> tuple[Provider, bool]:
        settings = self.runtime.settings
        if not spec.model or spec.model == settings.model:
            return self.provider, False
        try:
            return create_provider(settings.with_values(model=spec.model)), True
        except ProviderError as exc:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR, f"settings agents.{spec.name}.model: {exc.message}"
            ) from None

    def _forward(self, event: Event, agent: str, scope: str, ctx: ToolContext) -> None:
        if ctx.emit is not None:
            ctx.emit(Subagent(agent, scope, scoped_event(event, scope)))

    def _agent(
        self,
        spec: SubagentDef,
        toolkit: Toolkit,
        provider: Provider,
        conversation: Conversation,
        events: EventStream,
        ctx: ToolContext,
        scope: str,
    ) -> Agent:
        settings = self.runtime.settings
        nested = Subagents(
            self.runtime,
            provider=self.provider,
            approver=self.approver,
            permissions=self.permissions,
            depth=self.depth + 1,
        )
        child_ctx = dataclasses.replace(
            ctx, session_id=conversation.id, call_id="", emit=None, subagents=nested, todos=None
        )
        approver = self.approver

        async def approve(request: ApprovalRequest) -> Decision:
            return await approver(dataclasses.replace(request, call=_scoped(request.call, scope)))

        return Agent(
            AgentSpec(
                instructions=spec.instructions,
                dialect=get_dialect(spec.dialect or settings.dialect),
                toolkit=toolkit,
                name=spec.name,
                max_steps=spec.max_steps,
            ),
            provider,
            child_ctx,
            conversation,
            TurnServices(
                approve,
                events=events,
                checkpoints=self.runtime.checkpoints,
                permissions=self.permissions,
            ),
        )
