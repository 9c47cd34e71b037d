"""The karyi terminal tools: `command`, `input`, `ctrl`.

All three act on the session's one persistent terminal (so they share the resource
`pty:<session>` and run in the order written). `command` runs a script; when it is still
running after the inactivity window, or waits for input, the result says so with status
`running`, and `input` (text typed, C escapes interpreted, no newline added) and `ctrl`
(a control key) act on it. `input` and `ctrl` are refused when nothing runs, so they can
never type a command line into the shell itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import Permission, PermissionVerdict, ToolResult
from karyi.shell.rules import CommandRules
from karyi.shell.terminal import TerminalResult
from karyi.tools.builtin.commands.common import (
    SANDBOX,
    CommandTool,
    sandbox_hint,
    shell_of,
)
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class

_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|[ntr\\0ae])")
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "0": "\0", "a": "\a", "e": "\x1b"}
_CTRL_PUNCT = {"@": 0, "[": 27, "\\": 28, "]": 29, "^": 30, "_": 31, "?": 127, " ": 0}
_CTRL_FORM = re.compile(r"^(?:\^|ctrl[-+ ]?|c-)?(.)$", re.IGNORECASE)


def unescape(text: str) -> str:
    """C escapes `\\n \\t \\r \\\\ \\xNN \\0 \\a \\e` → characters; anything else stays."""

    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        if code.startswith("x"):
            return chr(int(code[1:], 16))
        return _SIMPLE[code]

    return _ESCAPE.sub(one, text)


def control_byte(key: str) -> int | None:
    """The byte Ctrl+`key` sends (`c` → 3); None when `key` names no control key."""
    m = _CTRL_FORM.match(key.strip())
    if not m:
        return None
    char = m.group(1)
    if char.isascii() and char.isalpha():
        return ord(char.upper()) - 64
    return _CTRL_PUNCT.get(char)


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


def terminal_text(r: TerminalResult, inactivity: float, sandboxed: bool = False) -> str:
    """A terminal result as the model reads it: notes, output, status line (and what the
    sandbox did, when a failure was its doing)."""
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
    if r.state == "done" and (hint := sandbox_hint(r.output.text, r.exit_code, sandboxed)):
        parts.append(f"[{hint}]")
    return "\n".join(parts)


def terminal_result(r: TerminalResult, inactivity: float, sandboxed: bool) -> ToolResult:
    """The ToolResult of a terminal call (status `running` while the command runs)."""
    text = terminal_text(r, inactivity, sandboxed)
    data = {
        "state": r.state,
        "exit_code": r.exit_code,
        "cwd": r.cwd,
        "waiting_for_input": r.waiting_for_input,
        "output_file": r.output.path,
        "sandboxed": sandboxed,
    }
    status = "running" if r.state == "running" else ""
    return ToolResult.ok(text, data=data, status=status, display=text, sandboxed=sandboxed)


def _result(ctx: ToolContext, r: TerminalResult) -> ToolResult:
    shell = shell_of(ctx)
    return terminal_result(
        r, ctx.settings.shell.inactivity_seconds, shell.terminal_sandboxed(ctx.session_id)
    )


def _pty(ctx: ToolContext) -> frozenset[str]:
    return frozenset([f"pty:{ctx.session_id}"])


@param_class
class CommandParams(ToolParams):
    """karyi `command`'s parameters."""

    command: str = arg(description="the script (one or more lines)")
    timeout: float | None = arg(
        implied=None,
        exclusive_minimum=0,
        maximum=3600,
        description="seconds to wait at most before returning `running` "
        "(default: settings shell.timeoutSeconds)",
    )
    sandbox: bool = arg(
        implied=True,
        description=f"{SANDBOX}. Runs as a one-shot command "
        "(stdin closed) in the terminal's directory; the terminal itself is not changed",
    )


@param_class
class InputParams(ToolParams):
    """karyi `input`'s parameters."""

    text: str = arg(description="what to type")


@param_class
class CtrlParams(ToolParams):
    """karyi `ctrl`'s parameters."""

    key: str = arg(description="the key, e.g. c")


class Command(CommandTool[CommandParams]):
    """karyi `<command>`: a script in the session's persistent terminal."""

    name = "command"
    display_name = "Terminal command"
    description = (
        "Run a shell script in the session's persistent terminal (bash on a pty): the "
        "working directory, exported variables and functions persist between commands. "
        "Returns the output, exit code and working directory. A command still running "
        "after a few seconds without output, or waiting for input, returns what it printed "
        "so far with status `running`: answer with `input`, stop it with `ctrl`, or send an "
        "empty command to keep waiting. Long output is cut in the middle; the full output "
        "is kept in a file whose path the result gives."
    )
    permission = Permission.CONFIRM
    example = {"command": "npm install\nnpm run build"}
    where = "the terminal"

    def check(self, params: Mapping[str, Any]) -> str | None:
        """No NUL: a script is text."""
        return "command: cannot contain NUL" if "\0" in self.args(params).command else None

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The session's terminal."""
        return _pty(ctx)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the script and report (outside the sandbox: a one-shot, see the parameter)."""
        a = self.args(params)
        shell = shell_of(ctx)
        if not a.sandbox and shell.sandboxed:
            return await _outside(ctx, a)
        result = await shell.command(
            ctx.session_id,
            a.command,
            max_seconds=a.timeout,
            mirror=ctx.on_output,
        )
        return _result(ctx, result)


async def _outside(ctx: ToolContext, args: CommandParams) -> ToolResult:
    """`command` with `sandbox: false`: the sandboxed terminal cannot leave its sandbox, so
    the script runs as a one-shot outside it, where the terminal stands."""
    shell = shell_of(ctx)
    where = shell.terminal_cwd(ctx.session_id)
    r = await shell.oneshot(
        ctx.session_id,
        args.command,
        cwd=where,
        max_seconds=args.timeout,
        mirror=ctx.on_output,
        sandbox=False,
    )
    o = r.outcome
    end = f"exit code {o.exit_code}" if o.timed_out is None else f"killed ({o.timed_out})"
    text = (
        "[ran outside the sandbox as a one-shot command (stdin closed); the terminal's "
        "directory and variables are unchanged]\n"
        f"{r.output.text.rstrip(chr(10)) or '(no output)'}\n[{end} · cwd {r.cwd}]"
    )
    data = {"state": "done", "exit_code": o.exit_code, "cwd": r.cwd, "sandboxed": False}
    data["output_file"] = r.output.path
    return ToolResult.ok(text, data=data, display=text, sandboxed=False)


class Input(TypedTool[InputParams]):
    """karyi `<input>`: text typed to the running command."""

    changes_files = True  # an answer to "overwrite? (y/n)" changes files
    name = "input"
    display_name = "Terminal input"
    runs_programs = True  # typed into whatever runs: `pytest\n` runs the tests
    description = (
        "Type text to the command running in the terminal (a prompt, `read`, an "
        "interpreter). C escapes are interpreted: \\n (Enter), \\t, \\r, \\\\, \\xNN; no "
        "newline is added, so end with \\n to press Enter. Refused when nothing runs."
    )
    example = {"text": "y\\n"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Type {self.args(params).text!r} in the terminal"

    def permission_for(
        self, params: Mapping[str, Any], ctx: ToolContext
    ) -> PermissionVerdict | None:
        """Deny rules hold for typed text too: a line typed into whatever reads it may
        reach a shell. Otherwise the default (`auto`): programs that run what is typed
        to them (shells, editors, interpreters' prompts) were asked about when started."""
        text = unescape(self.args(params).text)
        rules = CommandRules.from_settings(ctx.settings)
        for line in text.replace("\r", "\n").split("\n"):
            verdict = rules.evaluate(line) if line.strip() else None
            if verdict is not None and verdict.permission is Permission.DENY:
                return PermissionVerdict(Permission.DENY, "typed text: " + verdict.reason)
        return None

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The session's terminal."""
        return _pty(ctx)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Type, then report what the command printed."""
        data = unescape(self.args(params).text).encode("utf-8")
        if not data:
            raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, "text: nothing to type")
        result = await shell_of(ctx).send(ctx.session_id, data, mirror=ctx.on_output)
        return _result(ctx, result)


class Ctrl(TypedTool[CtrlParams]):
    """karyi `<ctrl>`: a control key sent to the running command."""

    name = "ctrl"
    display_name = "Terminal control key"
    runs_programs = True
    description = (
        "Send a control key to the command running in the terminal: a letter "
        "(case-insensitive; `c` interrupts, `d` ends input, `z` suspends) or one of "
        "@ [ \\ ] ^ _ ?. Refused when nothing runs."
    )
    example = {"key": "c"}

    def check(self, params: Mapping[str, Any]) -> str | None:
        """The key must name a control key."""
        key = self.args(params).key
        if control_byte(key) is None:
            return (
                f"key: {key!r} is not a control key; expected one letter (a-z, "
                "any case) or one of @ [ \\ ] ^ _ ?"
            )
        return None

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Press Ctrl+{self.args(params).key.strip().upper()} in the terminal"

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The session's terminal."""
        return _pty(ctx)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Send the key, then report."""
        byte = control_byte(self.args(params).key)
        assert byte is not None
        result = await shell_of(ctx).send(ctx.session_id, bytes([byte]), mirror=ctx.on_output)
        return _result(ctx, result)
