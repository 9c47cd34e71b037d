"""What a running tool may use: the `ToolContext`, and the agent's services in it.

The context carries the workspace, settings, session, shell, secrets and editor a call
runs with. Some tools also need the agent around them, as interfaces they can name:

`call_subagent` runs another agent and the artifact tools keep versioned documents per
session: both are provided by the agent layer (`agent/subagents.py`,
`agent/session/artifacts.py`), which builds on tools, so the tools see only these protocols
through their `ToolContext`. A context without them (`karyi exec`) makes such a tool
fail with a clear message instead.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args

if TYPE_CHECKING:
    from karyi.navigation.navigator import Navigator
    from karyi.secrets.request import ValueAnswer, ValueRequest
    from karyi.secrets.vault import Vault
    from karyi.settings import Settings
    from karyi.shell.manager import ShellManager
    from karyi.workspace.editor import Editor, WriteRecord
    from karyi.workspace.workspace import Workspace
    from karyi.workspace.write_ahead import WriteAhead


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
    """The artifacts of one session (see `agent/session/artifacts.py`). Errors are ToolFailures."""

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


@dataclass(frozen=True)
class TodoItem:
    """One item of the task list the model keeps (`todo_write`, docs/workflow.md)."""

    id: str
    text: str
    status: str = field(
        default="pending", metadata={"typescript": "'pending' | 'in_progress' | 'done'"}
    )
    """`pending`, `in_progress` or `done`."""


TodoStatus = Literal["pending", "in_progress", "done"]
TODO_STATUSES: tuple[str, ...] = get_args(TodoStatus)


class TodoBoard(Protocol):
    """The task list of one session (see `agent/session/todos.py`): kept with the session and
    announced as an event on every change."""

    def items(self) -> list[TodoItem]:
        """The list as it stands."""
        ...

    def write(self, items: list[TodoItem]) -> None:
        """Replace the whole list."""
        ...


@dataclass
class ToolContext:
    """Everything a running tool may use: the workspace, settings, the session.

    `shell` runs commands (one terminal per session); `secrets` resolves `$KARYI{NAME}`
    and redacts results; `ask_value` is how a front end asks its user for a secret
    (None when it cannot). Front ends create them and close the shell manager at exit.
    `emit` publishes an event (an `agent.events.Event`) on the stream of the turn the
    call belongs to (the executor sets it per call); `subagents` and `artifacts` are the
    agent-layer services declared above (None where there is no agent).
    """

    workspace: Workspace
    settings: Settings
    session_id: str = "default"
    call_id: str = ""
    on_output: Callable[[str], None] | None = None
    shell: ShellManager | None = None
    secrets: Vault | None = None
    ask_value: Callable[[ValueRequest], Awaitable[ValueAnswer | None]] | None = None
    editor: Editor | None = None
    """An editor owning open files (the language server): their writes go through it."""
    journal: list[WriteRecord] | None = None
    """Where this call's writes are recorded (the executor gives each call its own)."""
    write_ahead: WriteAhead | None = None
    """This call's write-ahead journal: its disk writes are all-or-nothing across a crash."""
    overrides: Mapping[str, tuple[str, str]] | None = None
    """The user's final text per file (absolute path -> (the text they saw, their final
    text)), written instead of the tool's, rebased onto the file if it changed since."""
    emit: Callable[[Any], None] | None = None
    subagents: SubagentRunner | None = None
    artifacts: ArtifactBook | None = None
    todos: TodoBoard | None = None
    skill_grants: dict[str, str] = field(default_factory=dict)
    """Tools a skill in use pre-approved (`allowed-tools`), by tool name -> skill name:
    they run without asking for the rest of the session (tools/builtin/skills.py)."""
    navigator: Navigator | None = None
    """The workspace's language servers for the navigation tools (None: not here)."""
