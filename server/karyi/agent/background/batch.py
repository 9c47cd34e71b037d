"""Batches: the tasks of a JSON-lines file, each run unattended as a background task
(docs/parallel.md#batches).

A line is `{"repo", "task", "ref"?, "check"?, "model"?}`; `repo` is a local repository
or a git URL. A local repository gets the task's changes as a commit on a branch of its
own (`karyi/batch-KEY`) and nothing else: the task starts from `ref` (default HEAD), its
worktree lives in the git directory and its record in the batch's own folder, so the
user's checkout and working tree are never touched. A URL is cloned into the batch's
folder, and its changes are left as a patch file there. A task's key is a hash of its
line's content: a rerun skips the keys the report already has as finished.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from karyi.agent.background.manager import TaskError, create_task
from karyi.agent.background.records import DONE, TaskBook, TaskRecord
from karyi.agent.background.runner import SettingsFor, TaskRun
from karyi.agent.background.worktrees import GitError, git, remove_worktree

FIELDS = {"repo": str, "task": str, "ref": str, "check": str, "model": str}
REQUIRED = ("repo", "task")
GIT_SETUP = threading.Lock()
"""Worktrees of one repository are added and removed one at a time."""


@dataclass(frozen=True)
class BatchTask:
    """One valid line of the batch file."""

    line: int
    repo: str
    task: str
    ref: str | None = None
    check: str | None = None
    model: str | None = None

    @property
    def key(self) -> str:
        """Stable across reruns: the line's content, not its number."""
        body = json.dumps([self.repo, self.ref, self.task, self.check, self.model])
        return hashlib.sha256(body.encode()).hexdigest()[:12]

    @property
    def is_url(self) -> bool:
        """Whether `repo` is a URL to clone (else a local path)."""
        return "://" in self.repo or self.repo.startswith("git@")


@dataclass
class BatchResult:
    """How one task of the batch ended: one row of the table and of the JSON report."""

    key: str
    line: int
    task: str
    repo: str
    status: str
    check: bool | None = None
    files: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    seconds: float = 0.0
    branch: str | None = None
    patch: str | None = None
    error: str | None = None
    patch_text: str = field(default="", repr=False)
    transcript_text: str = field(default="", repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The report's JSON form (without the patch and transcript texts)."""
        out = asdict(self)
        out.pop("patch_text")
        out.pop("transcript_text")
        return out


def parse_tasks(text: str, base: Path) -> tuple[list[BatchTask], list[str]]:
    """The valid lines as tasks, and a precise error for each malformed one (by line
    number); local `repo` paths are taken relative to `base`."""
    tasks: list[BatchTask] = []
    errors: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            tasks.append(_parse_line(number, raw, base))
        except ValueError as exc:
            errors.append(f"line {number}: {exc}")
    return tasks, errors


def _parse_line(number: int, raw: str, base: Path) -> BatchTask:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r} (expected {', '.join(FIELDS)})")
    for name in REQUIRED:
        if not data.get(name):
            raise ValueError(f"{name!r} is missing")
    for name, value in data.items():
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{name!r} must be a string")
    task = BatchTask(number, **data)
    if not task.is_url:
        path = (base / task.repo).resolve()
        task = BatchTask(number, str(path), task.task, task.ref, task.check, task.model)
    return task


def done_keys(report: Path) -> dict[str, dict[str, Any]]:
    """The finished tasks of an earlier run of the batch (by key)."""
    if not report.is_file():
        return {}
    rows = json.loads(report.read_text(encoding="utf-8")).get("tasks", [])
    return {r["key"]: r for r in rows if r.get("status") == DONE}


async def run_batch_task(task: BatchTask, folder: Path, settings_for: SettingsFor) -> BatchResult:
    """Run one task to its end, unattended; its branch or patch is left, its worktree
    removed. Failures are the result's `error`, never an exception."""
    started = time.time()
    result = BatchResult(task.key, task.line, task.task, task.repo, "failed")
    try:
        repo, ref = await asyncio.to_thread(_repository, task, folder)
        book = TaskBook(repo, folder / "records" / task.key)
        record = await asyncio.to_thread(_create, task, repo, ref, book)
        settings = settings_for(Path(record.worktree), task.model)
        record = await TaskRun(book, record, settings).run(None)
        _fill(result, record, book)
        await asyncio.to_thread(_leave_changes, task, record, result, folder)
    except (TaskError, GitError, OSError) as exc:
        result.error = str(exc)
    result.seconds = round(time.time() - started, 3)
    return result


def _create(task: BatchTask, repo: Path, ref: str, book: TaskBook) -> TaskRecord:
    with GIT_SETUP:
        return create_task(
            repo,
            task.task,
            ref=ref,
            check=task.check,
            model=task.model,
            book=book,
            prefix=f"batch-{task.key}",
        )


def _repository(task: BatchTask, folder: Path) -> tuple[Path, str]:
    """The repository to run in and the ref to start from: a URL is fetched first."""
    if not task.is_url:
        return Path(task.repo), task.ref or "HEAD"
    clone = folder / "clones" / task.key
    if clone.exists():
        shutil.rmtree(clone)
    return clone, fetch_into(clone, task.repo, task.ref or "HEAD")


def fetch_into(clone: Path, source: str, ref: str) -> str:
    """A new repository at `clone` with `ref` of `source` (a URL, a path or a bundle)
    fetched; the commit it names."""
    clone.mkdir(parents=True)
    git(clone, "init", "--quiet")
    git(clone, "fetch", "--quiet", source, ref)
    return git(clone, "rev-parse", "FETCH_HEAD^{commit}").strip()


def _fill(result: BatchResult, record: TaskRecord, book: TaskBook) -> None:
    result.status, result.files = record.status, record.files
    result.input_tokens, result.output_tokens = record.input_tokens, record.output_tokens
    result.cost, result.error = record.cost, record.error
    if record.check_result is not None:
        result.check = record.check_result.passed
    patch = book.dir / record.id / "diff.patch"
    result.patch_text = patch.read_text(encoding="utf-8") if patch.exists() else ""
    transcript = book.dir / record.id / "transcript.jsonl"
    result.transcript_text = transcript.read_text(encoding="utf-8") if transcript.exists() else ""


def _leave_changes(task: BatchTask, record: TaskRecord, result: BatchResult, folder: Path) -> None:
    with GIT_SETUP:
        _leave(task, record, result, folder)


def _leave(task: BatchTask, record: TaskRecord, result: BatchResult, folder: Path) -> None:
    repo = Path(record.repo)
    if task.is_url:
        patch = folder / f"{task.key}.patch"
        patch.write_text(result.patch_text, encoding="utf-8")
        result.patch = str(patch)
        remove_worktree(repo, Path(record.worktree), record.branch)
        return
    remove_worktree(repo, Path(record.worktree), None)
    result.branch = record.branch


Progress = Callable[[BatchResult], None]


async def run_pool(
    tasks: list[BatchTask], folder: Path, settings_for: SettingsFor, jobs: int, done: Progress
) -> list[BatchResult]:
    """Every task on a local pool of `jobs` at a time, results in the tasks' order."""
    slots = asyncio.Semaphore(jobs)

    async def one(task: BatchTask) -> BatchResult:
        async with slots:
            result = await run_batch_task(task, folder, settings_for)
        done(result)
        return result

    return list(await asyncio.gather(*(one(t) for t in tasks)))
