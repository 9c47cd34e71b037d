"""The tool contract (SPEC §3; seeds 002 and 003 merged).

A tool declares its name, description, JSON Schema and permission default; it can
validate parameters with a precise message, describe what a call will do in one line,
say what the user must see before approving it, and execute asynchronously with
cancellation. Every outcome is a `ToolResult`, including every failure: a tool never
ends a turn by raising.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from karyi.tools.errors import ErrorCode, ToolFailure
from karyi.tools.schema import ParamValidator

if TYPE_CHECKING:
    from karyi.secrets.request import ValueAnswer, ValueRequest
    from karyi.secrets.vault import Vault
    from karyi.settings import Settings
    from karyi.shell.manager import ShellManager
    from karyi.tools.services import ArtifactBook, SubagentRunner
    from karyi.workspace.editor import Editor, PlannedWrite, WriteRecord
    from karyi.workspace.workspace import Workspace

log = logging.getLogger(__name__)


class Permission(StrEnum):
    """Whether a call runs at once, waits for the user, or is refused."""

    AUTO = "auto"
    CONFIRM = "confirm"
    DENY = "deny"


@dataclass(frozen=True)
class PermissionVerdict:
    """A tool's own judgement of one call (`Tool.permission_for`), with the reason.

    `permission` None means "no verdict": the user's setting or the tool's default
    applies, and `reason` still tells the user why the call was not cleared.
    """

    permission: Permission | None
    reason: str


@dataclass(frozen=True)
class ToolError:
    """A failure's machine code and the sentence that explains it."""

    code: str
    message: str


@dataclass
class ToolResult:
    """What a call produced: text for the model, a view for the user, data for programs."""

    success: bool
    llm_content: str
    display: str | dict[str, Any] = ""
    data: Any = None
    error: ToolError | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    status: str = ""

    @classmethod
    def ok(
        cls,
        llm_content: str,
        *,
        display: str | dict[str, Any] = "",
        data: Any = None,
        status: str = "",
        **metadata: Any,
    ) -> ToolResult:
        """A successful result."""
        return cls(True, llm_content, display or llm_content, data, None, metadata, status)

    @classmethod
    def fail(
        cls,
        code: ErrorCode | str,
        message: str,
        *,
        llm_content: str | None = None,
        display: str | dict[str, Any] = "",
        data: Any = None,
        **metadata: Any,
    ) -> ToolResult:
        """A failed result; `llm_content` defaults to the message."""
        return cls(
            False,
            message if llm_content is None else llm_content,
            display or message,
            data,
            ToolError(str(code), message),
            metadata,
        )

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON form (seed 002's `ToolResult.to_dict`)."""
        out: dict[str, Any] = {
            "success": self.success,
            "llm_content": self.llm_content,
            "display": self.display,
            "data": self.data,
            "error": (
                {"code": self.error.code, "message": self.error.message} if self.error else None
            ),
            "metadata": self.metadata,
        }
        if self.status:
            out["status"] = self.status
        return out


@dataclass(frozen=True)
class Confirmation:
    """What the user must see before approving a call: a command, a diff, a URL."""

    kind: str
    title: str
    details: str = ""
    diff: str | None = None
    url: str | None = None
    files: tuple[PlannedWrite, ...] = ()
    """For edits: each file's text before and after, for an editor's inline preview."""


@dataclass
class ToolContext:
    """Everything a running tool may use: the workspace, settings, the session.

    `shell` runs commands (one terminal per session); `secrets` resolves `$KARYI{NAME}`
    and redacts results; `ask_value` is how a front end asks its user for a secret
    (None when it cannot). Front ends create them and close the shell manager at exit.
    `emit` publishes an event (an `agent.events.Event`) on the stream of the turn the
    call belongs to (the executor sets it per call); `subagents` and `artifacts` are the
    agent-layer services of `tools.services` (None where there is no agent).
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
    overrides: Mapping[str, tuple[str, str]] | None = None
    """The user's final text per file (absolute path -> (the text they saw, their final
    text)), written instead of the tool's, rebased onto the file if it changed since."""
    emit: Callable[[Any], None] | None = None
    subagents: SubagentRunner | None = None
    artifacts: ArtifactBook | None = None


class Tool(ABC):
    """Base class of every tool. Subclasses set the class attributes and `execute`."""

    name: ClassVar[str]
    display_name: ClassVar[str] = ""
    description: ClassVar[str]
    parameters: ClassVar[dict[str, Any]]
    permission: ClassVar[Permission] = Permission.AUTO
    example: ClassVar[dict[str, Any] | None] = None
    changes_files: ClassVar[bool] = False
    """True for tools that may change workspace files: a checkpoint is taken first."""
    runs_programs: ClassVar[bool] = False
    """True for tools whose effects nobody can list (a command, an MCP server, a user's
    program): such a call runs after every earlier call of the reply and before every
    later one, so `edit` then `pytest` tests the edited file."""

    @cached_property
    def _validator(self) -> ParamValidator:
        return ParamValidator(self.parameters)

    @property
    def title(self) -> str:
        """The name shown to users."""
        return self.display_name or self.name

    def validate(self, params: Mapping[str, Any]) -> str | None:
        """None when `params` are acceptable, else every problem in one message."""
        errors = self._validator.errors(params)
        if errors:
            return "; ".join(errors)
        return self.check(params)

    def check(self, params: Mapping[str, Any]) -> str | None:
        """The tool's own checks after the schema passed (override when needed)."""
        return None

    def describe(self, params: Mapping[str, Any]) -> str:
        """What the call will do, in one line for the user."""
        args = ", ".join(f"{k}={v!r}" for k, v in params.items())
        return f"{self.name}({args})"

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Confirmation | None:
        """Details for the approval prompt; None when there is nothing beyond `describe`."""
        return None

    def approval_key(self, params: Mapping[str, Any]) -> str:
        """What "allow always" remembers for this call: the tool, unless a tool narrows
        it (a command tool remembers the command, not every command)."""
        return self.name

    def permission_for(
        self, params: Mapping[str, Any], ctx: ToolContext
    ) -> PermissionVerdict | None:
        """This call's own verdict (command rules, for instance); None defers to settings.

        Only the user's `permissions.tools.NAME: deny` outranks it (see the executor).
        """
        return None

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """Keys of what the call touches; calls sharing a key run in written order."""
        return frozenset()

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """True when the call reads files it cannot name beforehand (a search, a listing):
        it runs after the calls written before it that change files, and those written
        after it that change files wait for it."""
        return False

    @abstractmethod
    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Do the work. May raise ToolFailure; cancellation arrives as CancelledError."""

    async def run(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Validate, execute, and turn every failure into a result."""
        problem = self.validate(params)
        if problem:
            return ToolResult.fail(ErrorCode.INVALID_TOOL_INPUT, f"{self.name}: {problem}")
        try:
            return await self.execute(params, ctx)
        except ToolFailure as exc:
            return ToolResult.fail(exc.code, exc.message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("tool %s failed", self.name)
            return ToolResult.fail(
                ErrorCode.TOOL_ERROR, f"{self.name} failed: {type(exc).__name__}: {exc}"
            )
