"""Opening the session database and writing to it, with a full or read-only disk said
in one sentence (`core/storage.py`, docs/reliability.md) instead of an sqlite3 error."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from karyi.core.storage import storage_unavailable
from karyi.workspace.localdir import local_dir


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
