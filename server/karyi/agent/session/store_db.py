"""Opening the session database and writing to it, with a full or read-only disk said
in one sentence (`core/storage.py`, docs/reliability.md) instead of an sqlite3 error.

Writes a turn can go on without (`best_effort`) do not end the turn on such a disk: the
first that fails sets the store's `unsaved` sentence, the store stops writing (a history
with holes would resume wrong), and the turn tells the user once.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from karyi.core.storage import StorageUnavailable, storage_unavailable
from karyi.workspace.localdir import local_dir

P = ParamSpec("P")


class Saving(Protocol):
    """A store whose writes may stop: `unsaved` says why, None while it saves."""

    unsaved: str | None


S = TypeVar("S", bound=Saving)


def not_saved(exc: StorageUnavailable) -> str:
    """The sentence a session that stopped being saved is told."""
    return f"This session is not being saved: {exc}"


def best_effort(method: Callable[Concatenate[S, P], None]) -> Callable[Concatenate[S, P], None]:
    """A store write the turn goes on without: a full or read-only disk sets `unsaved`
    (and every later write is skipped) instead of raising."""

    @functools.wraps(method)
    def write(store: S, /, *args: P.args, **kwargs: P.kwargs) -> None:
        if store.unsaved is not None:
            return
        try:
            method(store, *args, **kwargs)
        except StorageUnavailable as exc:
            store.unsaved = not_saved(exc)

    return write


def workspace_db_path(root: Path) -> Path:
    """`<root>/.karyi/sessions.db`, the folder made (and kept out of git) first."""
    try:
        return local_dir(root) / "sessions.db"
    except OSError as exc:
        where = root / ".karyi" / "sessions.db"
        raise storage_unavailable(where, exc, "open the session store") from exc


def open_db(path: Path, schema: str) -> sqlite3.Connection:
    """The database at `path` in WAL mode with `schema` applied."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # WAL stays consistent on a crash
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA busy_timeout=5000")
        db.executescript(schema)
    except (sqlite3.Error, OSError) as exc:
        raise storage_unavailable(path, exc, "open the session store") from exc
    return db


@contextmanager
def transaction(db: sqlite3.Connection, path: Path) -> Iterator[sqlite3.Connection]:
    """One write transaction, rolled back on any failure."""
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    except (sqlite3.OperationalError, OSError) as exc:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise storage_unavailable(path, exc, "save the session") from exc
