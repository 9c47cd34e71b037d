"""What an agent is given and what a turn gives back: the agent's spec, the services a
turn uses, and how a turn ended."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from karyi.agent.diagnostics.problems import ProblemSource
from karyi.agent.events import EventStream
from karyi.agent.review.approval import Approver
from karyi.agent.review.permissions import PermissionMemory
from karyi.agent.session.checkpoints import Checkpoints
from karyi.protocol.base import Dialect
from karyi.tools.base import Tool
from karyi.tools.registry import Toolkit

if TYPE_CHECKING:  # the transcript's modules load when a session is read back
    from karyi.agent.session.transcript_build import ParserFor

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

    def reparser(self) -> ParserFor:
        """Parsers of this agent's dialect and tools over one shared state: how stored
        replies are read again for the transcript (agent/session/transcript_build.py)."""
        return lambda state: self.dialect.parser(self.toolkit.schema, state)


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
    unsent: tuple[str, ...] = ()
    """Messages the user sent into the turn that it ended before reading (no tool boundary
    came): the front end sends them as the next message (agent/turn/steering.py)."""


@dataclass
class TurnServices:
    """What a turn uses besides its model and tools: the approver that asks the user, the
    event stream, checkpoints, rules, changed-file notes, remembered permissions, run-time
    tools and diagnostics. Every field but the approver may be left out."""

    approver: Approver
    events: EventStream | None = None
    checkpoints: Checkpoints | None = None
    rules: Callable[[], str] | None = None
    """The project rules' text in force (agent/prompting/rules.py)."""
    changes: Callable[[str], list[str]] | None = None
    """Files changed on disk since the model read them, for a session id."""
    permissions: PermissionMemory | None = None
    tool_source: ToolSource | None = None
    problems: ProblemSource | None = None
