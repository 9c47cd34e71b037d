"""Keeping what a task did: everything changed in its worktree committed on its branch,
the list of changed files and the diff written (docs/parallel.md#tasks).

The runner does it when a turn ends or is stopped; recovery does it for a task whose
process was killed, so an interrupted task can be reviewed and applied like any other.
"""

from __future__ import annotations

from pathlib import Path

from karyi.agent.background.records import FAILED, TaskBook, TaskRecord
from karyi.agent.background.worktrees import changes, commit_all, diff


def collect(book: TaskBook, record: TaskRecord) -> None:
    """Commit the worktree's changes and note the head, the files and the diff; a failure
    marks the task failed with the reason (nothing else is changed)."""
    worktree = Path(record.worktree)
    message = f"karyi task {record.id}: {record.task.splitlines()[0][:60]}"
    try:
        record.head = commit_all(worktree, message)
        record.files = [c.path for c in changes(worktree, record.base, record.head)]
        patch = diff(worktree, record.base, record.head)
        (book.files(record.id) / "diff.patch").write_text(patch, encoding="utf-8")
    except Exception as exc:
        record.status, record.error = FAILED, f"collecting the changes failed: {exc}"
