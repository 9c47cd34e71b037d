"""Running a review: the reviewers in parallel over one change, their findings sorted
out, and what it cost against the budget (docs/review.md#budget).

Each reviewer is an agent with a fresh, unsaved conversation, its own instructions and
toolkit (agent/code_review/reviewers.py) and the runtime's workspace and rules
(`AGENTS.md`); what it reports is read from its `report_finding` results. When the
reviewers together have used the budget's tokens (or cost), every one still running is
cancelled and the review reports what it has.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from karyi.agent.code_review.changes import Change
from karyi.agent.code_review.findings import Finding, Sorted, sort_out
from karyi.agent.code_review.reviewers import (
    READ_ONLY,
    REPORT,
    REVIEWERS,
    Reviewer,
    review_rules,
    task_text,
)
from karyi.agent.events import Event, EventStream, ToolDone, Usage
from karyi.agent.review.approval import deny_all
from karyi.agent.subagent_defs import SubagentDef
from karyi.agent.subagents import build_toolkit
from karyi.llm.base import Provider

if TYPE_CHECKING:
    from karyi.agent.runtime import Runtime
    from karyi.agent.turn.loop import Agent

Watcher = Callable[[str, Event], None]
"""Told each reviewer's events, with the reviewer's name (a front end's progress)."""


@dataclass(frozen=True)
class Budget:
    """What all the reviewers of one review may use together."""

    tokens: int = 400_000
    """Input plus output tokens."""
    cost: float | None = None
    """USD; None: no limit (a model without a price is limited by tokens only)."""


@dataclass
class Pass:
    """What one reviewer did."""

    name: str
    stop_reason: str = "not started"
    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    seconds: float = 0.0
    reports: int = 0
    findings: list[Finding] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`karyi review --format json`'s `reviewers`)."""
        return {
            "name": self.name,
            "stopReason": self.stop_reason,
            "steps": self.steps,
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "cost": self.cost,
            "seconds": round(self.seconds, 3),
            "reports": self.reports,
        }


@dataclass
class Review:
    """A finished review: the findings kept, what was dropped and merged, each pass."""

    change: Change
    sorted: Sorted
    passes: list[Pass]
    budget: Budget
    over_budget: bool = False

    @property
    def findings(self) -> list[Finding]:
        """The findings on the change, one per problem."""
        return self.sorted.kept

    @property
    def tokens(self) -> int:
        """Input plus output tokens of every pass."""
        return sum(p.input_tokens + p.output_tokens for p in self.passes)

    @property
    def cost(self) -> float | None:
        """What the passes cost in USD (None: the model has no price)."""
        costs = [p.cost for p in self.passes if p.cost is not None]
        return sum(costs) if costs else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of `karyi review --format json`."""
        return {
            "change": self.change.label,
            "findings": [f.to_dict() for f in self.findings],
            "dropped": self.sorted.dropped,
            "merged": self.sorted.merged,
            "reviewers": [p.to_dict() for p in self.passes],
            "tokens": self.tokens,
            "cost": self.cost,
            "budget": {"tokens": self.budget.tokens, "cost": self.budget.cost},
            "overBudget": self.over_budget,
        }


class _Meter:
    """The tokens and cost of every pass so far; past the budget, every pass is
    cancelled (each once: a pass that starts late is cancelled at its first event)."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.used: dict[str, tuple[int, float]] = {}
        self.agents: list[Agent] = []
        self.stopped: set[int] = set()
        self.over = False

    def note(self, name: str, event: Event) -> None:
        if isinstance(event, Usage):
            self.used[name] = (event.input_tokens + event.output_tokens, event.turn_cost or 0.0)
            tokens = sum(t for t, _ in self.used.values())
            cost = sum(c for _, c in self.used.values())
            limit = self.budget.cost
            self.over = self.over or tokens >= self.budget.tokens
            self.over = self.over or (limit is not None and cost >= limit)
        if self.over:
            for index, agent in enumerate(self.agents):
                if index not in self.stopped and agent.cancel():
                    self.stopped.add(index)


async def run_review(
    runtime: Runtime,
    change: Change,
    *,
    provider: Provider | None = None,
    reviewers: Sequence[Reviewer] = REVIEWERS,
    budget: Budget | None = None,
    watch: Watcher | None = None,
) -> Review:
    """Review `change` with `reviewers` in parallel (the runtime's model unless
    `provider` is given) and sort out what they found."""
    budget = budget or Budget()
    model = provider or runtime.provider()
    meter = _Meter(budget)
    task = task_text(change, review_rules(runtime.workspace.root))
    passes = [Pass(r.name) for r in reviewers]
    pairs = zip(reviewers, passes, strict=True)
    agents = [_agent(runtime, r, p, model, meter, watch) for r, p in pairs]
    meter.agents = agents
    try:
        await asyncio.gather(*(_run(a, p, task) for a, p in zip(agents, passes, strict=True)))
    finally:
        if provider is None:
            await model.aclose()
    found = [f for p in passes for f in p.findings]
    return Review(change, sort_out(found, change), passes, budget, meter.over)


async def _run(agent: Agent, done: Pass, task: str) -> None:
    started = time.monotonic()
    result = await agent.run(task)
    done.seconds = time.monotonic() - started
    done.stop_reason = result.stop_reason
    done.steps = result.steps
    done.input_tokens = result.input_tokens
    done.output_tokens = result.output_tokens
    done.cost = result.cost


def _agent(
    runtime: Runtime,
    reviewer: Reviewer,
    done: Pass,
    provider: Provider,
    meter: _Meter,
    watch: Watcher | None,
) -> Agent:
    from karyi.agent.prompting.rules import rules_text
    from karyi.agent.session.conversation import Conversation
    from karyi.agent.tool_context import tool_context
    from karyi.agent.turn.loop import Agent
    from karyi.agent.turn.spec import AgentSpec, TurnServices
    from karyi.protocol import get_dialect

    settings = runtime.settings
    spec = SubagentDef(
        reviewer.name, reviewer.focus, None, None, None, None, (*READ_ONLY, REPORT), 0
    )
    toolkit = build_toolkit(runtime.registry, spec, nested=False)
    conversation = Conversation(f"review-{reviewer.name}-{uuid.uuid4().hex[:8]}")
    events = EventStream()
    events.subscribe(lambda event: _note(event, reviewer.name, done, meter))
    if watch is not None:
        events.subscribe(lambda event: watch(reviewer.name, event))
    return Agent(
        AgentSpec(
            instructions=reviewer.instructions,
            dialect=get_dialect(settings.dialect),
            toolkit=toolkit,
            name=reviewer.name,
            max_steps=reviewer.max_steps,
        ),
        provider,
        tool_context(runtime, conversation.id),
        conversation,
        TurnServices(
            deny_all,
            events=events,
            rules=lambda: runtime.vault.redactor.redact(rules_text(runtime.rules())),
        ),
    )


def _note(event: Event, name: str, done: Pass, meter: _Meter) -> None:
    meter.note(name, event)
    if isinstance(event, ToolDone) and event.call.name == "report_finding":
        done.reports += 1
        if event.result.success and isinstance(event.result.data, dict):
            done.findings.append(Finding.from_data(event.result.data, name))
