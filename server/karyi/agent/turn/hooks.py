"""Hooks: the user's own commands around the agent (docs/workflow.md#hooks).

Settings `hooks` lists commands per event: `beforeTool` and `afterTool` (with a
tool-name glob `match`), `userPrompt` and `turnEnd`. Each runs as `bash -c` in the
workspace (shell/capture.py: its process tree is killed at its timeout), gets the event
as JSON on stdin, and is reported as a `hook` event. What a hook may do:

- `beforeTool` exiting 2 blocks the call; its stderr is what the model is told.
- `afterTool` output (stdout; stderr when it exits 2) is appended to the result the
  model reads: a formatter's or a test run's report.
- `userPrompt` output is added to the user's message; exiting 2 stops the turn.
- `turnEnd` output is shown to the user.

Any other failure (another exit code, a timeout, a missing program) is reported and the
agent goes on: a hook is never fatal. Payloads and outputs pass the secrets redactor.
Only the user's settings may set hooks (settings/workspace_trust.py).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from karyi.agent import events
from karyi.agent.events import Event, HookStatus
from karyi.core.results import ToolResult
from karyi.core.typed_json import to_json
from karyi.protocol.calls import ToolCall
from karyi.settings import Settings
from karyi.shell.capture import capture
from karyi.tools.discovery import command_env

HOOK_EVENTS = ("beforeTool", "afterTool", "userPrompt", "turnEnd")
BLOCK = 2
"""The exit code that blocks (beforeTool, userPrompt) or reports to the model (afterTool)."""
DEFAULT_TIMEOUT = 10.0
OUTPUT_LIMIT = 8000


@dataclass(frozen=True)
class Hook:
    """One configured command."""

    event: str
    command: str
    match: str = "*"
    timeout: float = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class Outcome:
    """What the hooks of one event decided: `blocked` with the words for the model, or
    `output` to add (empty: nothing)."""

    blocked: str | None = None
    output: str = ""


def configured(settings: Settings) -> dict[str, list[Hook]]:
    """The hooks of the settings by event (the schema already checked their shape)."""
    by_event = to_json(settings.hooks)
    out: dict[str, list[Hook]] = {}
    for event in HOOK_EVENTS:
        out[event] = [
            Hook(event, h["command"], h.get("match", "*"), float(h.get("timeout", DEFAULT_TIMEOUT)))
            for h in by_event.get(event, [])
        ]
    return out


def _cut(text: str) -> str:
    text = text.strip()
    if len(text) <= OUTPUT_LIMIT:
        return text
    return text[:OUTPUT_LIMIT] + f"\n[… {len(text) - OUTPUT_LIMIT} more characters]"


class Hooks:
    """The hooks of one agent: run by event, each reported on the agent's stream."""

    def __init__(
        self,
        settings: Settings,
        root: Path,
        emit: Callable[[Event], None],
        redact: Callable[[str], str] = lambda text: text,
    ) -> None:
        self.settings = settings
        self.root = root
        self.emit = emit
        self.redact = redact
        self.hooks = configured(settings)

    def __bool__(self) -> bool:
        return any(self.hooks.values())

    async def run(self, event: str, payload: Mapping[str, Any], tool: str = "") -> Outcome:
        """Run the hooks of `event` (those whose `match` fits `tool` for tool events) in
        order; the first that blocks stops the rest."""
        body = {"event": event, "cwd": str(self.root), **payload}
        stdin = self.redact(json.dumps(body, ensure_ascii=False, default=str)).encode()
        outputs: list[str] = []
        for hook in self.hooks.get(event, []):
            if tool and not fnmatch.fnmatchcase(tool, hook.match):
                continue
            blocked, output = await self._one(hook, stdin, tool)
            if blocked is not None:
                return Outcome(blocked=blocked)
            if output:
                outputs.append(output)
        return Outcome(output="\n\n".join(outputs))

    async def _one(self, hook: Hook, stdin: bytes, tool: str) -> tuple[str | None, str]:
        started = time.monotonic()
        try:
            run = await capture(
                hook.command,
                stdin=stdin,
                cwd=self.root,
                env=command_env(self.settings),
                seconds=hook.timeout,
            )
        except OSError as exc:  # bash itself could not start
            self._report(hook, tool, None, "", f"could not run: {exc}", started, "failed")
            return None, ""
        out, err = _cut(self.redact(run.stdout)), _cut(self.redact(run.stderr))
        if run.timed_out:
            why = f"did not finish within {hook.timeout:g}s and was stopped"
            self._report(hook, tool, None, out, why, started, "failed")
            return None, ""
        if run.exit_code == BLOCK:
            status: HookStatus = "reported" if hook.event == "afterTool" else "blocked"
            self._report(hook, tool, BLOCK, out, err, started, status)
            if hook.event == "afterTool":
                return None, err or out
            return err or f"blocked by the {hook.event} hook `{hook.command}`", ""
        if run.exit_code != 0:
            how = f"was killed by {run.signal}" if run.signal else f"exited with {run.exit_code}"
            self._report(hook, tool, run.exit_code, out, err or how, started, "failed")
            return None, ""
        self._report(hook, tool, 0, out, err, started, "ok")
        return None, out

    def _report(
        self,
        hook: Hook,
        tool: str,
        code: int | None,
        out: str,
        err: str,
        started: float,
        status: HookStatus,
    ) -> None:
        seconds = round(time.monotonic() - started, 3)
        self.emit(events.Hook(hook.event, hook.command, tool, status, code, out, err, seconds))

    # -- the events ----------------------------------------------------------------------

    async def before_tool(self, session_id: str, call: ToolCall) -> str | None:
        """Why the call may not run (a hook exited 2), or None."""
        if not self.hooks["beforeTool"]:
            return None
        payload = {"sessionId": session_id, "tool": call.name, "callId": call.id}
        outcome = await self.run("beforeTool", {**payload, "params": call.params}, call.name)
        return outcome.blocked

    async def after_tool(self, session_id: str, call: ToolCall, result: ToolResult) -> ToolResult:
        """`result` with the hooks' output appended where the model reads it."""
        if not self.hooks["afterTool"]:
            return result
        payload = {
            "sessionId": session_id,
            "tool": call.name,
            "callId": call.id,
            "params": call.params,
            "result": {
                "success": result.success,
                "content": result.llm_content,
                "error": result.error.code if result.error else None,
            },
        }
        outcome = await self.run("afterTool", payload, call.name)
        if not outcome.output:
            return result
        note = f"[afterTool hook output]\n{outcome.output}"
        data = result.data  # agentxml shows `data` when there is one (see executor.with_note)
        if isinstance(data, str):
            data = f"{data}\n\n{note}"
        elif isinstance(data, dict):
            data = {**data, "hookOutput": outcome.output}
        return dataclasses.replace(result, llm_content=f"{result.llm_content}\n\n{note}", data=data)
