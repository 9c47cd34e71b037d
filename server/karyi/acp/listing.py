"""`session/list`: the stored sessions of a workspace, newest first, in pages.

Sessions live in each workspace's store (`.karyi/sessions.db`), so a listing is per
workspace: the `cwd` filter names one; without it, every workspace this connection
opened a session in (and the directory `karyi acp` started in). Listing reads the store
only: it needs no model, no key and no runtime. Sessions without a message yet are left
out (nothing to go back to). Background tasks are listed as sessions of the repository
they belong to (task_sessions.py). The cursor is opaque to the client: the offset of the next
page.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from pathlib import Path

from acp.schema import ListSessionsResponse, SessionInfo

from karyi.acp.task_sessions import listed_tasks, task_meta, task_title
from karyi.agent.session.store import SessionStore

PAGE = 50
"""Sessions per page."""


class BadCursor(ValueError):
    """A cursor this agent did not hand out."""


def iso_time(stamp: float) -> str:
    """ISO 8601 in UTC, as ACP's `updatedAt` wants."""
    return datetime.datetime.fromtimestamp(stamp, datetime.UTC).isoformat().replace("+00:00", "Z")


def _stored(root: Path) -> list[tuple[float, SessionInfo]]:
    path = root / ".karyi" / "sessions.db"
    if not path.is_file():
        return []
    store = SessionStore(path)
    try:
        rows = store.all()
    finally:
        store.close()
    return [
        (
            r.updated,
            SessionInfo(
                session_id=r.id,
                cwd=str(root),
                title=r.title or None,
                updated_at=iso_time(r.updated),
            ),
        )
        for r in rows
        if r.messages
    ]


def _task_sessions(root: Path) -> list[tuple[float, SessionInfo]]:
    """Each background task of `root`'s repository is a session too (task_sessions.py)."""
    out = []
    for r in listed_tasks(root):
        updated = r.finished or r.started or r.created
        info = SessionInfo(
            session_id=str(r.session_id),
            cwd=str(root),
            title=task_title(r),
            updated_at=iso_time(updated),
            field_meta={"karyi": task_meta(r)},
        )
        out.append((updated, info))
    return out


def list_sessions(
    roots: Iterable[Path], cursor: str | None, page_size: int = PAGE
) -> ListSessionsResponse:
    """One page of the sessions of `roots`, most recently updated first."""
    try:
        start = int(cursor) if cursor else 0
    except ValueError:
        raise BadCursor(f"{cursor!r} is not a cursor this agent gave") from None
    if start < 0:
        raise BadCursor(f"{cursor!r} is not a cursor this agent gave")
    unique = list(dict.fromkeys(roots))
    tasks = [s for root in unique for s in _task_sessions(root)]
    shown = {info.session_id for _, info in tasks}  # a task's worktree may be a root too
    found = tasks + [s for root in unique for s in _stored(root) if s[1].session_id not in shown]
    found.sort(key=lambda pair: pair[0], reverse=True)
    end = start + page_size
    page = [info for _, info in found[start:end]]
    return ListSessionsResponse(sessions=page, next_cursor=str(end) if end < len(found) else None)
