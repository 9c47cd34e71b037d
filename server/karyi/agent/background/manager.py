"""Background tasks of one repository in one process: creating them, running several at
once (`agents.maxParallel`), stopping them, and answering the questions that pause them
(docs/parallel.md#tasks).

The language server and the gateway hold a manager for their workspace; the CLI's
detached runner (`karyi task`) holds one too. What a task needs from the user reaches
the front end through `on_question`; `answer` resumes that task alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from karyi.agent.background.records import QUEUED, STOPPED, WAITING, TaskBook, TaskRecord
from karyi.agent.background.recovery import claim, recover
from karyi.agent.background.runner import SettingsFor, TaskRun
from karyi.agent.background.worktrees import (
    GitError,
    add_worktree,
    repository_root,
    resolve,
    snapshot,
    tasks_dir,
)
from karyi.agent.review.approval import ApprovalRequest, Decision

Listener = Callable[[TaskRecord], None]


class TaskError(Exception):
    """A task could not be started or changed: the message says why."""


def create_task(
    workspace: Path,
    task: str,
    *,
    ref: str | None = None,
    check: str | None = None,
    model: str | None = None,
    book: TaskBook | None = None,
    prefix: str = "task",
) -> TaskRecord:
    """A new queued task: its worktree on its own branch, from the working tree as it is
    now (or from `ref`), and its record (in `book`, by default the repository's).
    Raises TaskError for bad input, changing nothing."""
    if not task.strip():
        raise TaskError("the task is empty: say what to do")
    try:
        repo = repository_root(workspace)
        base = resolve(repo, ref) if ref else snapshot(repo)
        task_id = TaskBook.new_id()
        branch = f"karyi/{prefix}-{task_id}"
        worktree = tasks_dir(repo) / task_id
        add_worktree(repo, worktree, branch, base)
    except GitError as exc:
        raise TaskError(str(exc)) from None
    record = TaskRecord(
        task_id, task, str(repo), str(worktree), branch, base, ref, check or None, model
    )
    (book or TaskBook(repo)).save(record)
    return record


class TaskManager:
    """Runs the tasks of one repository, at most `max_parallel` at a time."""

    def __init__(self, repo: Path, settings_for: SettingsFor, max_parallel: int) -> None:
        self.repo = repo
        self.book = TaskBook(repo)
        self.settings_for = settings_for
        self.slots = asyncio.Semaphore(max_parallel)
        self.runs: dict[str, TaskRun] = {}
        self.jobs: dict[str, asyncio.Task[TaskRecord]] = {}
        self.listeners: list[Listener] = []
        self._answers: dict[str, asyncio.Future[Decision]] = {}

    def start(self, task: str, **options: Any) -> TaskRecord:
        """Create a task and run it as soon as a slot is free."""
        record = create_task(self.repo, task, **options)
        self.launch(record)
        return record

    def launch(self, record: TaskRecord) -> asyncio.Task[TaskRecord]:
        """Run a created (queued) task in this process (its record names this process,
        so another one can tell when it is gone: recovery.py)."""
        claim(record)
        self.book.save(record)
        settings = self.settings_for(Path(record.worktree), record.model)
        run = TaskRun(self.book, record, settings)
        run.save = lambda: self._saved(run)  # type: ignore[method-assign]
        self.runs[record.id] = run
        job = asyncio.create_task(self._run(run), name=f"karyi-task-{record.id}")
        self.jobs[record.id] = job
        return job

    async def _run(self, run: TaskRun) -> TaskRecord:
        async with self.slots:
            return await run.run(lambda request: self._ask(run, request))

    def _saved(self, run: TaskRun) -> None:
        self.book.save(run.record)
        for listener in list(self.listeners):
            listener(run.record)

    async def _ask(self, run: TaskRun, request: ApprovalRequest) -> Decision:
        record = run.record
        confirmation = request.confirmation
        record.status, record.step = WAITING, f"waiting: {request.description}"
        record.question = {
            "tool": request.call.name,
            "description": request.description,
            "details": (confirmation.details or confirmation.diff or "") if confirmation else "",
            "reason": request.reason,
        }
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._answers[record.id] = future
        run.save()
        try:
            return await future
        finally:
            self._answers.pop(record.id, None)
            record.status, record.question = "running", None
            run.save()

    def answer(self, task_id: str, allow: bool, feedback: str | None = None) -> bool:
        """Answer the question a task waits on; False when it waits on none."""
        future = self._answers.get(task_id)
        if future is None or future.done():
            return False
        future.set_result(Decision(allow, feedback=feedback))
        return True

    def stop(self, task_id: str) -> bool:
        """Stop a task of this process (its partial work is kept); False when it is not
        running here."""
        run = self.runs.get(task_id)
        if run is None:
            return False
        run.stop()
        future = self._answers.get(task_id)
        if future is not None and not future.done():
            future.set_result(Decision(False, feedback="The user stopped this task."))
        if run.record.status == QUEUED:
            run.record.status = STOPPED
        return True

    def recover(self) -> list[TaskRecord]:
        """Mark the tasks whose process is gone interrupted (recovery.py); the listeners
        hear of each. The ones marked by this call, for the front end to tell its user."""
        marked = recover(self.book)
        for record in marked:
            for listener in list(self.listeners):
                listener(record)
        return marked

    async def wait(self, task_id: str) -> TaskRecord:
        """The task's finished record."""
        return await self.jobs[task_id]

    def busy(self) -> bool:
        """Whether any task of this process has not finished."""
        return any(not job.done() for job in self.jobs.values())
