"""Background tasks as ACP sessions (docs/acp.md#background-tasks): each task that ran
an agent is a session of its repository's workspace, listed by `session/list` with its
status in the title, and `session/load`/`session/resume` open it read-only.

A task's session lives in its own worktree's store (`<worktree>/.karyi/sessions.db`),
so it is listed while the worktree exists (until the task is kept or discarded). It is
read-only because the task's work is reviewed and applied as a whole
(docs/parallel.md): a prompt there would change the worktree behind the task's diff.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from karyi.agent.background.records import TaskBook, TaskRecord
from karyi.agent.background.worktrees import GitError, repository_root
from karyi.agent.session.store import SessionStore


class ReadOnly(Exception):
    """A prompt on a background task's session: the message says why it is refused."""


@dataclass(frozen=True)
class TaskSession:
    """Where a task's session is opened, and why it takes no prompt."""

    worktree: str
    read_only: str


def _tasks(root: Path) -> list[TaskRecord]:
    """The tasks of the repository `root` is in that have a session to show."""
    if not (root / ".git").exists() and not (root / ".karyi" / "tasks").is_dir():
        return []  # not a repository's top: no git call for every listed workspace
    try:
        book = TaskBook(repository_root(root))
    except GitError:
        return []
    return [r for r in book.all() if r.session_id and _store(r).is_file()]


def _store(record: TaskRecord) -> Path:
    return Path(record.worktree) / ".karyi" / "sessions.db"


def listed_tasks(root: Path) -> list[TaskRecord]:
    """The tasks of `root`'s repository whose session is stored in their worktree."""
    out = []
    for record in _tasks(root):
        store = SessionStore(_store(record))
        try:
            if store.exists(str(record.session_id)):
                out.append(record)
        finally:
            store.close()
    return out


def task_title(record: TaskRecord) -> str:
    """The session's title: the task's status and first line."""
    first = record.task.splitlines()[0][:60] if record.task.strip() else record.id
    return f"Background task ({record.status}): {first}"


def task_meta(record: TaskRecord) -> dict[str, object]:
    """The session's `_meta.karyi`: which task, where its work is, and that it is
    read-only."""
    return {
        "taskId": record.id,
        "status": record.status,
        "branch": record.branch,
        "worktree": record.worktree,
        "readOnly": True,
    }


def task_session(root: Path, session_id: str) -> TaskSession | None:
    """The task whose session `session_id` is, in the repository of `root`; None when it
    is no task's."""
    if not root.is_absolute():
        return None
    for record in _tasks(root):
        if record.session_id == session_id:
            why = (
                f"this is the session of background task {record.id} ({record.status}): "
                "it is read-only; review, apply or discard the task's work (karyi task, "
                "the editor's Agents view), or start a new session"
            )
            return TaskSession(record.worktree, why)
    return None
