"""What every command tool shares: the shell manager lookup, the command rules, the
approval details, and the wording of a terminal result for the model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import PermissionVerdict, ToolResult
from karyi.shell.manager import OneShotResult, ShellManager
from karyi.shell.rules import CommandRules
from karyi.shell.terminal import TerminalResult
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


def _status_line(r: TerminalResult, seconds: float) -> str:
    if r.state == "done":
        return f"[exit code {r.exit_code} · cwd {r.cwd}]"
    if r.state == "exited":
        return f"[the shell exited with code {r.exit_code}]"
    if r.state == "idle":
        return "[nothing is running]"
    if r.waiting_for_input:
        return (
            "[still running, waiting for input: answer with the input tool (for example "
            "`y\\n`), or stop it with ctrl (`c`)]"
        )
    return (
        f"[still running, no output for {r.quiet_for:.0f} s (the call returns after "
        f"{seconds:g} s of silence): send input or ctrl, or an empty command to keep waiting]"
    )


def terminal_text(r: TerminalResult, inactivity: float) -> str:
    """A terminal result as the model reads it: notes, output, status line."""
    parts: list[str] = []
    if r.previous is not None:
        prev = r.previous
        parts.append(
            f"[the previous command finished with exit code {prev.exit_code}; its last output:]"
        )
        parts.append(prev.output.text.rstrip("\n") or "(no output)")
        parts.append("[your command:]")
    parts += [f"[{note}]" for note in r.notes]
    parts.append(r.output.text.rstrip("\n") or "(no output)")
    parts.append(_status_line(r, inactivity))
    return "\n".join(parts)


def terminal_result(r: TerminalResult, inactivity: float) -> ToolResult:
    """The ToolResult of a terminal call (status `running` while the command runs)."""
    text = terminal_text(r, inactivity)
    data = {
        "state": r.state,
        "exit_code": r.exit_code,
        "cwd": r.cwd,
        "waiting_for_input": r.waiting_for_input,
        "output_file": r.output.path,
    }
    return ToolResult.ok(
        text, data=data, status="running" if r.state == "running" else "", display=text
    )


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
