"""Which `user_id` owns each gateway session, and which stored session it is.

Clients name their sessions (`"session_id": "s1"`); the session store names its own.
This table maps one to the other per `user_id`: each user_id has its own session ids,
so two users' "s1" are two sessions and nothing tells one user that the other's
exists. It lives beside the session database (`.karyi/gateway.db`) so sessions keep
their owners across restarts.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from karyi.workspace.localdir import local_dir

_SCHEMA = """
CREATE TABLE IF NOT EXISTS user_sessions (
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    store_id TEXT NOT NULL,
    channel TEXT,
    created REAL NOT NULL,
    PRIMARY KEY (user_id, session_id)
);
"""
_OLD_TABLE = "gateway_sessions"  # before 0.1.1: session ids were global


@dataclass(frozen=True)
class Owner:
    """One gateway session: its owner and the stored session behind it."""

    session_id: str
    user_id: str
    store_id: str


class SessionOwners:
    """The owner table (SQLite, one connection, used from the server's event loop)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()
        self._upgrade()

    def _upgrade(self) -> None:
        """Carry the rows of a table written by an older Karyi over to this one."""
        self._db.execute("BEGIN IMMEDIATE")  # one process upgrades; another finds it done
        try:
            found = self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (_OLD_TABLE,)
            ).fetchone()
            if found:
                self._db.execute(
                    "INSERT OR IGNORE INTO user_sessions"
                    " (user_id, session_id, store_id, channel, created)"
                    f" SELECT user_id, session_id, store_id, channel, created FROM {_OLD_TABLE}"
                )
                self._db.execute(f"DROP TABLE {_OLD_TABLE}")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    @classmethod
    def for_workspace(cls, root: Path) -> SessionOwners:
        """The table at `<root>/.karyi/gateway.db`."""
        return cls(local_dir(root) / "gateway.db")

    def get(self, user_id: str, session_id: str) -> Owner | None:
        """The user's session of that id, or None when the user has not used it yet."""
        with self._lock:
            row = self._db.execute(
                "SELECT session_id, user_id, store_id FROM user_sessions"
                " WHERE user_id = ? AND session_id = ?",
                (user_id, session_id),
            ).fetchone()
        return Owner(*row) if row else None

    def bind(self, session_id: str, user_id: str, store_id: str, channel: str | None) -> Owner:
        """Record a new session (or point an existing one at a new stored session)."""
        with self._lock:
            self._db.execute(
                "INSERT INTO user_sessions (user_id, session_id, store_id, channel, created)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(user_id, session_id) DO UPDATE SET"
                " store_id = excluded.store_id",
                (user_id, session_id, store_id, channel, time.time()),
            )
        return Owner(session_id, user_id, store_id)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
