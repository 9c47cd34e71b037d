"""The detached runner behind `karyi task`: tasks outlive the command that started them
(docs/parallel.md#how-tasks-outlive-the-command).

`karyi task start` creates the task (worktree, branch, record `queued` in
`.karyi/tasks/`) and starts this runner as its own session, detached from the terminal.
One runner per repository holds `.karyi/tasks/runner.lock`; it runs the queued tasks
with a pool of `agents.maxParallel`, carries out the requests other commands leave in a
task's folder (`stop`, `answer`), and exits when nothing is left to run. A runner that
finds the lock taken exits at once: the holder picks the new task up. Before exiting the
holder releases the lock and looks once more, so a task queued meanwhile is never left.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import subprocess
import sys
from pathlib import Path
from typing import IO

from karyi.agent.background.manager import TaskManager
from karyi.agent.background.records import ACTIVE, QUEUED, STOPPED, TaskBook, TaskRecord
from karyi.settings import Settings, load_settings

RUNNER = "_runner"
"""The hidden `karyi task` action that runs this module."""


def spawn_runner(repo: Path) -> None:
    """Start a detached runner for `repo` (it exits at once when one is running)."""
    book = TaskBook(repo)
    book.dir.mkdir(parents=True, exist_ok=True)
    with (book.dir / "runner.log").open("ab") as log:
        subprocess.Popen(
            [sys.executable, "-m", "karyi", "task", RUNNER, "--workspace", str(repo)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            cwd=repo,
        )


def _settings_for(worktree: Path, model: str | None) -> Settings:
    settings = load_settings(worktree, flags={"model": model})
    for warning in settings.warnings:
        print(f"karyi: warning: {warning}", file=sys.stderr, flush=True)
    return settings


def _try_lock(book: TaskBook) -> IO[str] | None:
    handle = (book.dir / "runner.lock").open("w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


def run_runner(repo: Path) -> int:
    """Serve the repository's queued tasks until none is left."""
    book = TaskBook(repo)
    book.dir.mkdir(parents=True, exist_ok=True)
    while True:
        lock = _try_lock(book)
        if lock is None:
            return 0
        try:
            asyncio.run(_serve(repo, book))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            lock.close()
        if not _queued(book):
            return 0


def _queued(book: TaskBook) -> list[TaskRecord]:
    return [r for r in book.all() if r.status == QUEUED]


async def _serve(repo: Path, book: TaskBook) -> None:
    from watchfiles import awatch

    max_parallel = load_settings(repo).max_parallel
    manager = TaskManager(repo, _settings_for, max_parallel)
    _tick(manager, book)
    if not manager.busy():
        return
    async for _changes in awatch(book.dir, rust_timeout=1000, yield_on_timeout=True):
        _tick(manager, book)
        if not manager.busy():
            break
    for job in manager.jobs.values():
        with contextlib.suppress(Exception):
            await job


def _tick(manager: TaskManager, book: TaskBook) -> None:
    """Claim the queued tasks and carry out the requests left for running ones."""
    for record in _queued(book):
        if record.id in manager.runs:
            continue
        if (book.dir / record.id / "stop").exists():
            record.status, record.stop_reason = STOPPED, "stopped before it started"
            book.save(record)
            continue
        manager.launch(record)
    for task_id in list(manager.runs):
        folder = book.dir / task_id
        if (folder / "stop").exists():
            (folder / "stop").unlink()
            manager.stop(task_id)
        answer = folder / "answer"
        if answer.exists():
            data = json.loads(answer.read_text(encoding="utf-8"))
            answer.unlink()
            manager.answer(task_id, bool(data.get("allow")), data.get("feedback"))


def request(book: TaskBook, record: TaskRecord, name: str, body: dict[str, object]) -> None:
    """Leave a request (`stop`, `answer`) for the runner of a task."""
    if record.status not in ACTIVE:
        return
    folder = book.files(record.id)
    tmp = folder / f".{name}.tmp"
    tmp.write_text(json.dumps(body), encoding="utf-8")
    tmp.replace(folder / name)
