"""One-shot command tools: agentxml `run_command`, vecli `shell`, gateway `shell`.

Each runs its command alone (`ShellManager.oneshot`: new process group, stdin closed,
overall and idle limits, everything it started killed when it ends) with the session's
environment. Each keeps its profile's parameters and result shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import Permission, PermissionVerdict, ToolResult
from karyi.shell.manager import OneShotResult
from karyi.tools.builtin.commands.common import (
    SANDBOX,
    CommandArgs,
    CommandTool,
    sandbox_hint,
    shell_of,
)
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, arg, param_class

_DISABLED = "shell is disabled on this server (settings gateway.enableShell is false)"
_COMMAND = "the command line (bash)"


@param_class
class RunCommandParams(ToolParams):
    """agentxml `run_command`'s parameters."""

    command: str = arg(min_length=1, description=_COMMAND)
    sandbox: bool = arg(implied=True, description=SANDBOX)


@param_class
class VecliShellParams(ToolParams):
    """vecli `shell`'s parameters."""

    command: str = arg(min_length=1, description=_COMMAND)
    description: str | None = arg(
        implied=None, description="a short description of the command for the user"
    )
    directory: str | None = arg(
        implied=None,
        description="directory to run in, relative to the project root (default: root)",
    )
    sandbox: bool = arg(implied=True, description=SANDBOX)


@param_class
class GatewayShellParams(ToolParams):
    """gateway `shell`'s parameters."""

    command: str = arg(min_length=1, description=_COMMAND)
    cwd: str | None = arg(implied=None, description="working directory (default: the root)")
    timeout_seconds: float | None = arg(
        implied=None,
        exclusive_minimum=0,
        maximum=3600,
        description="time limit in seconds (default: settings shell.timeoutSeconds)",
    )
    sandbox: bool = arg(implied=True, description=SANDBOX)


def _env(ctx: ToolContext) -> frozenset[str]:
    return frozenset([f"env:{ctx.session_id}"])


def _directory(ctx: ToolContext, raw: str | None, param: str) -> Path | None:
    """A working directory through the path policy; None means the workspace root."""
    if raw is None or raw == "":
        return None
    path = ctx.workspace.resolve(raw, param=param)
    if not path.is_dir():
        what = "does not exist" if not path.exists() else "is not a directory"
        raise ToolFailure(ErrorCode.NOT_FOUND, f"{param}: {raw!r} {what}")
    return path


def oneshot_summary(r: OneShotResult, timeout: float, idle: float) -> str:
    """The end of a one-shot command in words: exit code, signal, limits, stopped children."""
    o = r.outcome
    if o.timed_out == "timeout":
        said = f"killed: still running after {timeout:g} s (the time limit)"
    elif o.timed_out == "idle":
        said = f"killed: no output for {idle:g} s (settings shell.oneShotIdleSeconds)"
    elif o.signal:
        said = f"ended by signal {o.signal}"
    else:
        said = f"exit code {o.exit_code}"
    if o.stopped:
        said += (
            f"; {len(o.stopped)} background process(es) it left were stopped "
            f"({', '.join(map(str, o.stopped))})"
        )
    return said


def oneshot_failure(r: OneShotResult, text: str, data: Any = None) -> ToolResult | None:
    """A failed result when the command was killed by a limit, else None."""
    if r.outcome.timed_out is None:
        return None
    return ToolResult.fail(
        ErrorCode.TIMEOUT, text.splitlines()[-1].strip("[]"), llm_content=text, data=data
    )


async def _run(
    ctx: ToolContext,
    args: CommandArgs,
    cwd: Path | None,
    limit: float | None = None,
) -> tuple[OneShotResult, str]:
    result = await shell_of(ctx).oneshot(
        ctx.session_id,
        args.command,
        cwd=cwd,
        max_seconds=limit,
        mirror=ctx.on_output,
        sandbox=args.sandbox,
    )
    summary = oneshot_summary(
        result,
        limit or ctx.settings.shell.timeout_seconds,
        ctx.settings.shell.one_shot_idle_seconds,
    )
    hint = sandbox_hint(result.output.text, result.outcome.exit_code, result.sandboxed)
    summary += "" if result.sandboxed else "; not sandboxed"
    return result, f"{summary}]\n[{hint}" if hint else summary


class RunCommand(CommandTool[RunCommandParams]):
    """agentxml `run_command(command)`: the result string is the output and exit status."""

    name = "run_command"
    display_name = "Run command"
    description = (
        "Run a shell command in the workspace (bash, stdin closed, no interaction) and return "
        "its output (stdout and stderr together) and exit code. Background processes are "
        "stopped when the command ends. Long output is cut in the middle; the full output is "
        "kept in a file whose path the result gives."
    )
    permission = Permission.CONFIRM
    example = {"command": "ls -la"}

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The session's environment (ordered after set_env_variable)."""
        return _env(ctx)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Output, then `[exit code N]`."""
        result, summary = await _run(ctx, self.args(params), None)
        text = f"{result.output.text.rstrip()}\n[{summary}]".lstrip("\n")
        return oneshot_failure(result, text, data=text) or ToolResult.ok(
            text, data=text, exit_code=result.outcome.exit_code, sandboxed=result.sandboxed
        )


class VecliShell(CommandTool[VecliShellParams]):
    """vecli (Gemini CLI) `shell(command, description?, directory?)`."""

    name = "shell"
    display_name = "Shell"
    description = (
        "Execute a bash command (`bash -c <command>`) in the project. The command runs "
        "without input (stdin closed); background processes it starts are stopped when it "
        "ends. Returns: Command, Directory, Output (stdout and stderr together), Error, Exit "
        "Code, Signal, Background PIDs, Process Group PGID."
    )
    permission = Permission.CONFIRM
    example = {"command": "npm test", "description": "Run the test suite"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """The model's own description when given."""
        a = self.args(params)
        return f"{a.description} (`{a.command}`)" if a.description else super().describe(params)

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The session's environment (ordered after environment changes)."""
        return _env(ctx)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Gemini CLI's shell result layout."""
        a = self.args(params)
        directory = _directory(ctx, a.directory, "directory")
        result, summary = await _run(ctx, a, directory)
        o = result.outcome
        error = summary if o.timed_out or o.signal or "sandbox: false" in summary else "(none)"
        stopped = ", ".join(map(str, o.stopped))
        background = f"{stopped} (stopped when the command ended)" if stopped else "(none)"
        lines = [
            f"Command: {a.command}",
            f"Directory: {a.directory or '(root)'}",
            f"Output: {result.output.text.rstrip() or '(empty)'}",
            f"Error: {error}",
            f"Exit Code: {o.exit_code if o.exit_code is not None else '(none)'}",
            f"Signal: {o.signal or '(none)'}",
            f"Background PIDs: {background}",
            "Process Group PGID: (ended)",
            f"Sandboxed: {'yes' if result.sandboxed else 'no'}",
        ]
        text = "\n".join(lines)
        display = result.output.text.rstrip() or f"Command finished: {summary}"
        return oneshot_failure(result, text) or ToolResult.ok(
            text, display=display, exit_code=o.exit_code, sandboxed=result.sandboxed
        )


class GatewayShell(CommandTool[GatewayShellParams]):
    """gateway `shell(command, cwd?, timeout_seconds?)`, disabled unless enabled."""

    name = "shell"
    display_name = "Shell"
    description = (
        "Run a shell command (high risk: use only when the file tools cannot do the job). "
        "stdin is closed; `cwd` is relative to the repository; the command is killed after "
        "`timeout_seconds`."
    )
    permission = Permission.CONFIRM
    example = {"command": "pwd", "cwd": "apps/gateway", "timeout_seconds": 20}

    def permission_for(
        self, params: Mapping[str, Any], ctx: ToolContext
    ) -> PermissionVerdict | None:
        """Refused outright while the server has the shell disabled; else the rules."""
        if not ctx.settings.gateway.enable_shell:
            return PermissionVerdict(Permission.DENY, _DISABLED)
        return super().permission_for(params, ctx)

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The session's environment."""
        return _env(ctx)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`{"ok", "command", "exit_code", "output", "text"}`."""
        if not ctx.settings.gateway.enable_shell:
            raise ToolFailure(ErrorCode.DISABLED, _DISABLED)
        a = self.args(params)
        cwd = _directory(ctx, a.cwd, "cwd")
        command = a.command
        result, summary = await _run(ctx, a, cwd, a.timeout_seconds)
        output = result.output.text
        text = f"{output.rstrip()}\n[{summary}]".lstrip("\n")
        shape = {
            "ok": result.outcome.timed_out is None,
            "command": command,
            "exit_code": result.outcome.exit_code,
            "output": output,
            "text": text,
            "sandboxed": result.sandboxed,
        }
        return oneshot_failure(result, text, data=shape) or ToolResult.ok(
            text, data=shape, sandboxed=result.sandboxed
        )
