"""What some tools need from the agent around them, as interfaces the tools can name.

`call_subagent` runs another agent and the artifact tools keep versioned documents per
session: both are provided by the agent layer (`agent/subagents.py`,
`agent/artifacts.py`), which builds on tools, so the tools see only these protocols
through their `ToolContext`. A context without them (`karyi exec`) makes such a tool
fail with a clear message instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from karyi.tools.base import ToolContext


@dataclass(frozen=True)
class SubagentAnswer:
    """How a subagent's run ended: its final answer and what it did on the way."""

    agent: str
    answer: str | None
    stop_reason: str
    steps: int
    calls: list[dict[str, Any]] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    error: str = ""


class SubagentRunner(Protocol):
    """Runs the agents defined in settings on a task (see `agent/subagents.py`)."""

    def agents(self) -> Mapping[str, str]:
        """Every agent this runner may start, with its description."""
        ...

    async def run(self, name: str, task: str, ctx: ToolContext) -> SubagentAnswer:
        """Run agent `name` on `task` to its end; cancelling cancels the agent."""
        ...


@dataclass(frozen=True)
class Artifact:
    """One version of a versioned document."""

    id: str
    title: str
    content_type: str
    version: int
    content: str
    created: float


class ArtifactBook(Protocol):
    """The artifacts of one session (see `agent/artifacts.py`). Errors are ToolFailures."""

    def create(self, artifact_id: str, title: str, content_type: str, content: str) -> Artifact:
        """Version 1 of a new artifact (a taken id is a conflict)."""
        ...

    def read(self, artifact_id: str, version: int | None = None) -> Artifact:
        """The latest version, or version `version`."""
        ...

    def save(self, artifact_id: str, content: str, *, base_version: int) -> Artifact:
        """A new version with `content`; `base_version` must still be the latest."""
        ...

    def list(self) -> list[Artifact]:
        """The latest version of every artifact, oldest first."""
        ...
