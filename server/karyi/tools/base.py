"""The tool contract every tool follows (docs/tools.md).

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
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import Permission, PermissionVerdict, ToolResult
from karyi.core.schema import ParamValidator
from karyi.tools.context import ToolContext

if TYPE_CHECKING:
    from karyi.workspace.editor import PlannedWrite

log = logging.getLogger(__name__)


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
    sandboxed: bool | None = None
    """For commands: whether it runs in the OS sandbox (None: not a command)."""
    always: bool = True
    """Whether the prompt may offer "allow always" (not for a command leaving the sandbox)."""


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
    plan_safe: ClassVar[bool] = False
    """True for tools that only read, search or look things up (and the task list): the
    only ones plan mode offers (docs/workflow.md#plan-mode)."""

    @cached_property
    def _validator(self) -> ParamValidator:
        return ParamValidator(self.parameters)

    def loaded(self) -> Tool:
        """The tool whose code answers calls: this one (a deferred tool imports its own
        first, tools/deferred.py)."""
        return self

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

    def rememberable(self, params: Mapping[str, Any]) -> bool:
        """Whether "allow always" / "reject always" may settle this call (a command that
        leaves the sandbox must be asked every time)."""
        return True

    def permission_for(
        self, params: Mapping[str, Any], ctx: ToolContext
    ) -> PermissionVerdict | None:
        """This call's own verdict (command rules, for instance); None defers to settings.

        Only the user's `permissions.tools.NAME: deny` outranks it (see `agent/review/approval.py`).
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

    async def prepare(self, params: Mapping[str, Any], ctx: ToolContext) -> None:
        """Work out, before the user is asked, what only an async step can (a rename's
        edit, from a language server), so `confirmation` can show it. Most tools need
        nothing; a failure here is the call's own, shown when it runs."""
        return None

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
