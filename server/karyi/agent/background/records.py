"""A background task's record and where records live: one JSON file per task in
`<repository>/.karyi/tasks/`, written atomically, so every process (the editor's
server, the CLI, the detached runner) sees the same tasks
(docs/parallel.md#how-tasks-outlive-the-command).

Beside `ID.json` a task keeps `ID/transcript.jsonl` (its events), `ID/diff.patch` (its
changes) and `ID/check.log` (the check command's output). Requests from other processes
to a running task (stop, an answer to a question) are files `ID/stop` and `ID/answer`.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

from karyi.core.atomic import write_atomic
from karyi.workspace.localdir import local_dir

QUEUED, RUNNING, WAITING = "queued", "running", "waiting"
DONE, FAILED, STOPPED = "done", "failed", "stopped"
INTERRUPTED = "interrupted"
"""The process that ran the task ended before it finished (docs/parallel.md#interrupted)."""
APPLIED, KEPT, DISCARDED = "applied", "kept", "discarded"
ACTIVE = (QUEUED, RUNNING, WAITING)
"""States of a task that is not finished."""
FINISHED = (DONE, FAILED, STOPPED, INTERRUPTED)
"""States of a finished task whose changes wait for the user's review."""
STATUSES = (*ACTIVE, *FINISHED, APPLIED, KEPT, DISCARDED)
WIRE_TYPES = {
    "status": " | ".join(f"'{s}'" for s in STATUSES),
    "question": "{ tool: string; description: string; details?: string; reason?: string } | null",
}
"""The extension's types of the fields that are plain strs and dicts here (protocol.gen.ts)."""


@dataclass
class CheckResult:
    """The check command's outcome: passed when it exited 0."""

    command: str
    exit_code: int | None
    passed: bool
    output: str = ""


@dataclass
class TaskRecord:
    """Everything known about one background task."""

    json_extra: ClassVar[dict[str, type]] = {"elapsed": float}
    """Keys `to_dict` adds to the fields."""
    id: str
    task: str
    repo: str
    worktree: str
    branch: str
    base: str
    """The commit the task started from (the working tree's snapshot or the ref's)."""
    ref: str | None = None
    check: str | None = None
    model: str | None = None
    status: str = field(default=QUEUED, metadata={"typescript": WIRE_TYPES["status"]})
    step: str = ""
    """What it is doing now (the current tool call, or the question it waits on)."""
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    head: str | None = None
    """The branch's head after the task committed its work."""
    files: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    stop_reason: str | None = None
    final_answer: str | None = None
    error: str | None = None
    check_result: CheckResult | None = None
    session_id: str | None = None
    question: dict[str, Any] | None = field(
        default=None, metadata={"typescript": WIRE_TYPES["question"]}
    )
    """While waiting: the call that needs the user (tool, description, details)."""
    runner_pid: int | None = None
    """The process that runs the task (the language server, the gateway, the runner)."""
    runner_start: str | None = None
    """That process's start time as the system counts it, so a reused pid is no match."""

    @property
    def elapsed(self) -> float:
        """Seconds it ran (so far)."""
        if self.started is None:
            return 0.0
        return (self.finished or time.time()) - self.started

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON form (files, CLI `--json`, LSP, gateway)."""
        out = asdict(self)
        out["elapsed"] = round(self.elapsed, 3)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskRecord:
        """Read the JSON form back (unknown keys are ignored)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        check = values.get("check_result")
        if isinstance(check, dict):
            values["check_result"] = CheckResult(**check)
        return cls(**values)


class TaskNotFound(LookupError):
    """No task with this id (or unique id prefix)."""


class TaskBook:
    """The task records of one repository."""

    def __init__(self, repo: Path, folder: Path | None = None) -> None:
        self.repo = repo
        self.dir = folder if folder is not None else local_dir(repo) / "tasks"

    @staticmethod
    def new_id() -> str:
        """A short, sortable, unique task id."""
        return time.strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)

    def save(self, record: TaskRecord) -> None:
        """Write the record (atomically: readers never see half of it)."""
        data = json.dumps(record.to_dict(), indent=2, ensure_ascii=False).encode()
        path = self.dir / f"{record.id}.json"
        write_atomic(path, data, display=str(path), make_parents=True)

    def files(self, task_id: str) -> Path:
        """The task's own folder (transcript, diff, check output, requests)."""
        path = self.dir / task_id
        path.mkdir(parents=True, exist_ok=True)
        return path

    def get(self, task_id: str) -> TaskRecord:
        """The record of `task_id`, or of the one task whose id starts with it."""
        exact = self.dir / f"{task_id}.json"
        if exact.is_file():
            return self._read(exact)
        matches = [p for p in self.dir.glob(f"{task_id}*.json")] if task_id else []
        if len(matches) == 1:
            return self._read(matches[0])
        if not matches:
            raise TaskNotFound(f"no task {task_id!r} (karyi task list shows them)")
        raise TaskNotFound(f"{task_id!r} names {len(matches)} tasks: give more of the id")

    def all(self) -> list[TaskRecord]:
        """Every task, oldest first."""
        if not self.dir.is_dir():
            return []
        return sorted(
            (self._read(p) for p in self.dir.glob("*.json")), key=lambda r: (r.created, r.id)
        )

    def remove(self, task_id: str) -> None:
        """Forget a task: its record and its folder."""
        (self.dir / f"{task_id}.json").unlink(missing_ok=True)
        folder = self.dir / task_id
        if folder.is_dir():
            for p in sorted(folder.rglob("*"), reverse=True):
                p.rmdir() if p.is_dir() else p.unlink()
            folder.rmdir()

    @staticmethod
    def _read(path: Path) -> TaskRecord:
        return TaskRecord.from_dict(json.loads(path.read_text(encoding="utf-8")))
