"""What every command tool shares: the shell manager lookup, the command rules and the
approval details (the command in full, and "allow always" for that command line)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import PermissionVerdict
from karyi.shell.manager import ShellManager
from karyi.shell.rules import CommandRules
from karyi.tools.base import Confirmation, Tool
from karyi.tools.context import ToolContext


def shell_of(ctx: ToolContext) -> ShellManager:
    """The context's shell manager, or a failure that says none was provided."""
    if ctx.shell is None:
        raise ToolFailure(
            ErrorCode.TOOL_ERROR, "no shell is available here (the front end started none)"
        )
    return ctx.shell


class CommandTool(Tool):
    """Base of tools whose `command` parameter is a shell line: rules and approval."""

    changes_files = True  # a command may change anything: a checkpoint is taken first
    runs_programs = True
    where = "a new shell"

    def permission_for(
        self, params: Mapping[str, Any], ctx: ToolContext
    ) -> PermissionVerdict | None:
        """The command rules' verdict on the line (see `shell.rules`)."""
        command = params.get("command")
        if not isinstance(command, str):
            return None
        return CommandRules.from_rules(ctx.settings.command_rules()).evaluate(command)

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Confirmation | None:
        """The command in full, and where it runs."""
        command = str(params.get("command", ""))
        first = command.strip().splitlines()[0] if command.strip() else "(empty)"
        return Confirmation("command", f"Run in {self.where}: {first}", details=command)

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        command = " ".join(str(params.get("command", "")).split())
        return f"Run `{command[:200]}`"

    def approval_key(self, params: Mapping[str, Any]) -> str:
        """What "allow always" remembers: this exact command line, not every command."""
        return f"{self.name}:{' '.join(str(params.get('command', '')).split())}"
