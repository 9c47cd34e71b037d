"""What every command tool shares: the shell manager lookup, the command rules, the
sandbox's approval mode and the approval details (the command in full, whether it runs
sandboxed, and "allow always" for that command line)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import Permission, PermissionVerdict
from karyi.shell.manager import ShellManager
from karyi.shell.rules import CommandRules
from karyi.tools.base import Confirmation
from karyi.tools.context import ToolContext
from karyi.tools.typed import TypedTool

SANDBOX = (
    "false runs the command outside the OS sandbox (network, files outside "
    "the workspace); the user is always asked. Only after a sandboxed run failed because of "
    "the sandbox"
)
"""The description of every command tool's `sandbox` parameter (default true)."""
_READ_ONLY = ("Read-only file system",)
_NO_NETWORK = (
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Could not resolve host",
    "Name or service not known",
)


def shell_of(ctx: ToolContext) -> ShellManager:
    """The context's shell manager, or a failure that says none was provided."""
    if ctx.shell is None:
        raise ToolFailure(
            ErrorCode.TOOL_ERROR, "no shell is available here (the front end started none)"
        )
    return ctx.shell


class CommandArgs(Protocol):
    """What every command tool's parameters have: the command line and `sandbox`."""

    @property
    def command(self) -> str:
        """The command line."""

    @property
    def sandbox(self) -> bool:
        """False: run outside the sandbox (only `sandbox: false` does)."""


C = TypeVar("C", bound=CommandArgs)


def runs_sandboxed(args: CommandArgs, ctx: ToolContext) -> bool:
    """Whether this call's command will run in the sandbox."""
    return args.sandbox and ctx.shell is not None and ctx.shell.sandboxed


def sandbox_hint(output: str, exit_code: int | None, sandboxed: bool) -> str | None:
    """A failure the sandbox caused, in plain words with the way out; None otherwise."""
    if not sandboxed or exit_code == 0:
        return None
    if any(marker in output for marker in _READ_ONLY):
        what = (
            "the sandbox made that write fail: outside the workspace the filesystem is "
            "read-only for commands"
        )
    elif any(marker in output for marker in _NO_NETWORK):
        what = "the sandbox made that fail: sandboxed commands have no network"
    else:
        return None
    return (
        f"{what}. If the command really needs it, call the tool again with `sandbox: false` "
        "(the user will be asked), or work inside the workspace"
    )


class CommandTool(TypedTool[C]):
    """Base of tools whose `command` parameter is a shell line: rules and approval."""

    changes_files = True  # a command may change anything: a checkpoint is taken first
    runs_programs = True
    where = "a new shell"

    def permission_for(
        self, params: Mapping[str, Any], ctx: ToolContext
    ) -> PermissionVerdict | None:
        """The command rules' verdict on the line (see `shell.rules`), then the sandbox:
        a call leaving it always asks; a sandboxed one the rules do not judge runs
        without asking when `shell.sandbox.autoApprove` is on (and the user did not set
        this tool to `confirm`)."""
        a = self.args(params)
        command = a.command
        verdict = CommandRules.from_settings(ctx.settings).evaluate(command)
        if verdict is not None and verdict.permission is Permission.DENY:
            return verdict
        if not a.sandbox:
            box = (ctx.settings.managed.get("shell") or {}).get("sandbox") or {}
            if box.get("mode") == "on":  # the organisation requires the sandbox
                why = ctx.settings.managed_refusal("shell.sandbox.mode")
                return PermissionVerdict(Permission.DENY, f"running outside the sandbox is {why}")
            return PermissionVerdict(
                Permission.CONFIRM, "runs outside the sandbox (sandbox: false): always asked"
            )
        unjudged = verdict is None or verdict.permission is None
        if unjudged and self._auto_in_sandbox(ctx):
            return PermissionVerdict(
                Permission.AUTO, "runs in the OS sandbox (settings shell.sandbox.autoApprove)"
            )
        return verdict

    def _auto_in_sandbox(self, ctx: ToolContext) -> bool:
        return (
            ctx.settings.shell.sandbox.auto_approve
            and ctx.settings.permissions.tools.get(self.name) is None
            and ctx.shell is not None
            and ctx.shell.sandboxed
        )

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Confirmation | None:
        """The command in full, where it runs, and whether in the sandbox."""
        a = self.args(params)
        command = a.command
        first = command.strip().splitlines()[0] if command.strip() else "(empty)"
        inside = runs_sandboxed(a, ctx)
        how = "sandboxed" if inside else "NOT sandboxed"
        box = ctx.settings.shell.sandbox
        if inside and not box.network and box.allowed_domains:
            how += "; network only to " + ", ".join(box.allowed_domains)
        return Confirmation(
            "command",
            f"Run in {self.where} ({how}): {first}",
            details=command,
            sandboxed=inside,
            always=a.sandbox,
        )

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        command = " ".join(a.command.split())
        outside = "" if a.sandbox else " outside the sandbox"
        return f"Run `{command[:200]}`{outside}"

    def approval_key(self, params: Mapping[str, Any]) -> str:
        """What "allow always" remembers: this exact command line, not every command."""
        return f"{self.name}:{' '.join(self.args(params).command.split())}"

    def rememberable(self, params: Mapping[str, Any]) -> bool:
        """A call leaving the sandbox is never settled by an earlier "always"."""
        return self.args(params).sandbox
