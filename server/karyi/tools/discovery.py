"""Tools from a discovery command (as Gemini CLI's `tools.discoveryCommand`).

Settings `tools.discoveryCommand` is run in the workspace root and prints function
declarations as JSON: a bare array, `{"function_declarations": [...]}`,
`{"functionDeclarations": [...]}`, or Gemini's tool list `[{"functionDeclarations":
[...]}]`. Each declaration (`name`, `description`, `parameters` or
`parametersJsonSchema`) becomes a tool; calling it runs `tools.callCommand NAME` with the
arguments as JSON on stdin, and its stdout is the result. A non-zero exit, a signal or
anything on stderr is reported to the model. Both commands are limited to
`tools.timeoutSeconds`.

Discovered tools run a program the user configured with arguments the model chose, so
they ask first (`confirm`), showing the command line and the arguments. A declaration
that is broken (no name, a schema that is not JSON Schema) is skipped with a warning;
the others are kept. Discovering again replaces every discovered tool.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import Permission, ToolResult
from karyi.settings import Settings
from karyi.shell.capture import Captured, capture
from karyi.shell.child_env import HIDDEN_ENV
from karyi.tools.base import Confirmation, Tool
from karyi.tools.context import ToolContext

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
_LISTS = ("function_declarations", "functionDeclarations")


class DiscoveryError(Exception):
    """The discovery command failed or printed something that is not declarations."""


@dataclass
class Discovered:
    """What one discovery produced: tools, and warnings about what was skipped."""

    tools: list[Tool] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def command_env(settings: Settings) -> dict[str, str]:
    """The environment of discovery and call commands: Karyi's model keys removed."""
    hidden = {*HIDDEN_ENV, settings.api_key_env or ""}
    return {k: v for k, v in os.environ.items() if k not in hidden}


def declarations_of(data: Any) -> list[Any]:
    """The declarations in any of the accepted shapes (raises DiscoveryError)."""
    if isinstance(data, Mapping):
        for key in _LISTS:
            if key in data:
                return declarations_of(data[key])
        raise DiscoveryError(
            "expected a JSON array of function declarations, or an object with "
            f"function_declarations or functionDeclarations; got an object with keys "
            f"{', '.join(sorted(map(str, data))) or '(none)'}"
        )
    if not isinstance(data, list):
        raise DiscoveryError(
            f"expected a JSON array of function declarations, got {type(data).__name__}"
        )
    out: list[Any] = []
    for item in data:
        if isinstance(item, Mapping) and any(k in item for k in _LISTS) and "name" not in item:
            out += declarations_of(item)
        else:
            out.append(item)
    return out


def parse_output(text: str) -> list[Any]:
    """The declarations a discovery command printed."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        head = text.strip()[:80] or "(nothing)"
        raise DiscoveryError(
            f"its output is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            f"it printed: {head!r}"
        ) from None
    return declarations_of(data)


def make_tool(decl: Any, call_command: str) -> Tool:
    """A DiscoveredTool for one declaration (raises DiscoveryError saying what is wrong)."""
    if not isinstance(decl, Mapping):
        raise DiscoveryError(f"a declaration must be an object, got {type(decl).__name__}")
    name = decl.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise DiscoveryError(
            "name: expected 1-64 letters, digits, _ . - (starting with a letter or _), "
            f"got {name!r}"
        )
    schema = decl.get("parametersJsonSchema", decl.get("parameters"))
    if schema is None:
        schema = {"type": "object", "properties": {}}
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        raise DiscoveryError(f"{name}: parameters: expected an object schema")
    schema = {"type": "object", **schema}
    from jsonschema import Draft202012Validator  # only with a discovery command
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        raise DiscoveryError(
            f"{name}: parameters is not valid JSON Schema at {where}: {exc.message}"
        ) from None
    attrs = {
        "name": name,
        "display_name": name,
        "description": str(decl.get("description") or f"{name} (a discovered tool)"),
        "parameters": schema,
        "command": call_command,
    }
    cls = type(f"Discovered_{name}", (DiscoveredTool,), attrs)
    tool: Tool = cls()
    return tool


async def discover(settings: Settings, cwd: Path, taken: set[str]) -> Discovered:
    """Run the discovery command and make its tools (raises DiscoveryError).

    Names in `taken` (built-in tools) are not replaced: such a declaration is skipped.
    """
    command = settings.tools.discovery_command
    call = settings.tools.call_command
    if not command:
        return Discovered()
    if not call:
        raise DiscoveryError(
            "tools.callCommand is not set: discovered tools could not be called; set it "
            "next to tools.discoveryCommand"
        )
    timeout = settings.tools.timeout_seconds
    run = await capture(command, cwd=cwd, env=command_env(settings), seconds=timeout)
    if run.timed_out:
        raise DiscoveryError(f"did not finish within {timeout:g}s (tools.timeoutSeconds)")
    if run.exit_code != 0:
        how = f"was killed by {run.signal}" if run.signal else f"exited with code {run.exit_code}"
        raise DiscoveryError(f"{how}: {run.stderr.strip()[-500:] or '(no stderr)'}")
    found = Discovered()
    for decl in parse_output(run.stdout):
        try:
            tool = make_tool(decl, str(call))
        except DiscoveryError as exc:
            found.warnings.append(f"tools.discoveryCommand: skipped a declaration: {exc}")
            continue
        if tool.name in taken or any(t.name == tool.name for t in found.tools):
            found.warnings.append(
                f"tools.discoveryCommand: skipped {tool.name!r}: a tool of that name exists"
            )
            continue
        found.tools.append(tool)
    return found


def report(run: Captured, timeout: float) -> tuple[bool, str]:
    """Gemini CLI's result layout: stdout alone when all went well, else every part."""
    if run.exit_code == 0 and not run.stderr.strip() and not run.timed_out:
        return True, run.stdout
    parts = [
        f"Stdout: {run.stdout.strip() or '(empty)'}",
        f"Stderr: {run.stderr.strip() or '(empty)'}",
    ]
    if run.timed_out:
        parts.append(f"Error: did not finish within {timeout:g}s (tools.timeoutSeconds)")
    parts.append(f"Exit Code: {run.exit_code if run.exit_code is not None else '(none)'}")
    if run.signal:
        parts.append(f"Signal: {run.signal}")
    return run.exit_code == 0 and not run.timed_out, "\n".join(parts)


class DiscoveredTool(Tool):
    """A tool from the discovery command, run through the call command."""

    name = "discovered"
    description = "A discovered tool."
    parameters = {"type": "object", "properties": {}}
    permission = Permission.CONFIRM
    runs_programs = True
    command = ""

    def command_line(self) -> str:
        """`callCommand NAME`."""
        return f"{self.command} {shlex.quote(self.name)}"

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Confirmation | None:
        """The command line and the JSON it gets on stdin."""
        return Confirmation(
            kind="command",
            title=f"Run discovered tool {self.name}",
            details=f"{self.command_line()} <<< {json.dumps(dict(params), ensure_ascii=False)}",
        )

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the call command with the arguments on stdin."""
        timeout = ctx.settings.tools.timeout_seconds
        try:
            run = await capture(
                self.command_line(),
                stdin=json.dumps(dict(params), ensure_ascii=False).encode(),
                cwd=ctx.workspace.root,
                env=command_env(ctx.settings),
                seconds=timeout,
            )
        except OSError as exc:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR, f"{self.name}: cannot start {self.command!r}: {exc}"
            ) from None
        ok, text = report(run, timeout)
        data = {"exit_code": run.exit_code, "signal": run.signal, "stderr": run.stderr}
        if ok:
            return ToolResult.ok(text, data=data)
        code = ErrorCode.TIMEOUT if run.timed_out else ErrorCode.TOOL_ERROR
        return ToolResult.fail(
            code, f"{self.name} failed", llm_content=text, display=text, data=data
        )
