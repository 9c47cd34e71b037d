"""Running one background task to its end: the agent in the task's worktree, then the
commit of its work, the diff, and the check command (docs/parallel.md#tasks).

The record is saved as the task goes (status, current step, tokens, cost), so every
front end can show it; the events go to `ID/transcript.jsonl`. A cancelled task (stop)
still commits what it did so far, so it can be reviewed and applied like any other.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path

from karyi.agent.background.approval import Ask, TaskApprover
from karyi.agent.background.collect import collect
from karyi.agent.background.records import (
    DONE,
    FAILED,
    RUNNING,
    STOPPED,
    CheckResult,
    TaskBook,
    TaskRecord,
)
from karyi.agent.events import (
    Event,
    Step,
    ToolAwaitingPermission,
    ToolRunning,
    TurnFinished,
    Usage,
)
from karyi.agent.runtime import Runtime
from karyi.agent.turn.loop import Agent
from karyi.settings import Settings

SettingsFor = Callable[[Path, "str | None"], Settings]
"""The settings a task's worktree runs with: (worktree, the task's model or None)."""

CHECK_OUTPUT_LIMIT = 20_000


class TaskRun:
    """One task being run: its record, its agent once started, and how to stop it."""

    def __init__(self, book: TaskBook, record: TaskRecord, settings: Settings) -> None:
        self.book = book
        self.record = record
        self.settings = settings
        self.agent: Agent | None = None
        self.stopping = False

    def stop(self) -> None:
        """Cancel the task's turn; what it did so far is kept."""
        self.stopping = True
        if self.agent is not None:
            self.agent.cancel()

    def save(self) -> None:
        """Write the record for the other processes and front ends."""
        self.book.save(self.record)

    async def run(self, ask: Ask | None) -> TaskRecord:
        """Run the agent, commit, diff, check; the finished record."""
        record = self.record
        record.status, record.started = RUNNING, time.time()
        self.save()
        worktree = Path(record.worktree)
        transcript = self.book.files(record.id) / "transcript.jsonl"
        try:
            if self.stopping:
                record.status = STOPPED
            else:
                await self._turn(worktree, transcript, ask)
        except Exception as exc:  # the task fails, the process and other tasks go on
            record.status, record.error = FAILED, f"{type(exc).__name__}: {exc}"
        await asyncio.to_thread(collect, self.book, record)
        outcome = record.status  # said once the check is over too: a task is done with it
        if record.check and outcome != STOPPED:
            record.status, record.step = RUNNING, f"check: {record.check}"
            self.save()
            record.check_result = await run_check(record.check, worktree, self.settings)
        record.status = outcome
        record.finished, record.step = time.time(), ""
        self.save()
        return record

    async def _turn(self, worktree: Path, transcript: Path, ask: Ask | None) -> None:
        record = self.record
        runtime = Runtime.open(worktree, self.settings)
        try:
            provider = runtime.provider()
            conversation = runtime.conversation()
            record.session_id = conversation.id
            agent = runtime.agent(
                conversation, approver=TaskApprover(worktree, ask), provider=provider
            )
            self.agent = agent
            with transcript.open("a", encoding="utf-8") as out:
                agent.events.subscribe(lambda e: self._on_event(e, out))
                result = await agent.run(record.task)
            await provider.aclose()
        finally:
            await runtime.aclose()
        record.stop_reason, record.final_answer = result.stop_reason, result.final_answer
        record.input_tokens, record.output_tokens = result.input_tokens, result.output_tokens
        record.cost = result.cost
        if result.stop_reason == "cancelled" or self.stopping:
            record.status = STOPPED
        elif result.stop_reason in ("end_turn", "final_answer"):
            record.status = DONE
        else:
            record.status, record.error = FAILED, f"the turn ended: {result.stop_reason}"

    def _on_event(self, event: Event, out: object) -> None:
        line = json.dumps(event.to_dict(), ensure_ascii=False, default=str)
        print(line, file=out, flush=True)  # type: ignore[call-overload]
        step = _step_of(event)
        if isinstance(event, Usage):
            self.record.input_tokens = event.input_tokens
            self.record.output_tokens = event.output_tokens
            self.record.cost = event.turn_cost
        elif step is None:
            return
        else:
            self.record.step = step
        self.save()


def _step_of(event: Event) -> str | None:
    """The "current step" an event announces (None: it changes nothing shown)."""
    if isinstance(event, Step):
        return f"step {event.step}: thinking"
    if isinstance(event, ToolRunning):
        return f"running {event.call.name}"
    if isinstance(event, ToolAwaitingPermission):
        return f"waiting: {event.description}"
    if isinstance(event, TurnFinished):
        return f"finished: {event.stop_reason}"
    return None


async def run_check(command: str, cwd: Path, settings: Settings) -> CheckResult:
    """Run the check command in the task's worktree, judged by its exit status."""
    proc = await asyncio.create_subprocess_shell(
        command,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    timeout = settings.shell.timeout_seconds
    try:
        raw, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return CheckResult(command, None, False, f"timed out after {timeout:g}s")
    text = raw.decode("utf-8", errors="replace")[-CHECK_OUTPUT_LIMIT:]
    return CheckResult(command, proc.returncode, proc.returncode == 0, text)
