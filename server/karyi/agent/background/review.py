"""What the user does with a finished task: apply it to the working tree, keep it as a
branch, or discard it (docs/parallel.md#stop-apply-keep-discard). Each works on the
records alone, so any process can do it, with or without the runner that ran the task.
"""

from __future__ import annotations

from pathlib import Path

from karyi.agent.background.manager import TaskError
from karyi.agent.background.merge import ApplyResult, apply_changes
from karyi.agent.background.records import (
    ACTIVE,
    APPLIED,
    DISCARDED,
    KEPT,
    TaskBook,
    TaskRecord,
)
from karyi.agent.background.worktrees import remove_worktree


def finished(book: TaskBook, task_id: str, doing: str) -> TaskRecord:
    """The task's record, or TaskError when it is not finished or already discarded."""
    record = book.get(task_id)
    if record.status in ACTIVE:
        raise TaskError(f"task {record.id} is {record.status}: stop it before you {doing} it")
    if record.status == DISCARDED:
        raise TaskError(f"task {record.id} was discarded: nothing is left to {doing}")
    return record


def apply_task(book: TaskBook, task_id: str) -> tuple[TaskRecord, ApplyResult]:
    """Merge the task's changes into the user's working tree (three-way, per file)."""
    record = finished(book, task_id, "apply")
    if record.status == APPLIED:
        raise TaskError(f"task {record.id} was applied already")
    if record.head is None:
        raise TaskError(f"task {record.id} has no committed work to apply")
    result = apply_changes(Path(record.repo), record.base, record.head)
    record.status = APPLIED
    book.save(record)
    return record, result


def keep_task(book: TaskBook, task_id: str) -> TaskRecord:
    """Keep the task's branch and remove its worktree."""
    record = finished(book, task_id, "keep")
    remove_worktree(Path(record.repo), Path(record.worktree), None)
    record.status = KEPT
    book.save(record)
    return record


def discard_task(book: TaskBook, task_id: str) -> TaskRecord:
    """Remove the task's worktree and branch; its record says it was discarded."""
    record = finished(book, task_id, "discard")
    remove_worktree(Path(record.repo), Path(record.worktree), record.branch)
    record.status = DISCARDED
    book.save(record)
    return record
