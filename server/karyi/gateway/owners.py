"""Which `user_id` owns each gateway session, and which stored session it is.

Clients name their sessions (`"session_id": "s1"`); the session store names its own.
This table maps one to the other and records the `user_id` that created the session:
another `user_id` naming it is told it does not exist. It lives beside the session
database (`.karyi/gateway.db`) so sessions keep their owners across restarts.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from karyi.agent.localdir import local_dir

_SCHEMA = """
CREATE TABLE IF NOT EXISTS gateway_sessions (
    session_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    store_id TEXT NOT NULL,
    channel TEXT,
    created REAL NOT NULL
);
"""


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

    @classmethod
    def for_workspace(cls, root: Path) -> SessionOwners:
        """The table at `<root>/.karyi/gateway.db`."""
        return cls(local_dir(root) / "gateway.db")

    def get(self, session_id: str) -> Owner | None:
        """The session's owner, or None when no client has used that id yet."""
        with self._lock:
            row = self._db.execute(
                "SELECT session_id, user_id, store_id FROM gateway_sessions WHERE session_id = ?",
                (session_id,),
            ).fetchone()
        return Owner(*row) if row else None

    def bind(self, session_id: str, user_id: str, store_id: str, channel: str | None) -> Owner:
        """Record a new session (or point an existing one at a new stored session)."""
        with self._lock:
            self._db.execute(
                "INSERT INTO gateway_sessions (session_id, user_id, store_id, channel, created)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET"
                " store_id = excluded.store_id",
                (session_id, user_id, store_id, channel, time.time()),
            )
        return Owner(session_id, user_id, store_id)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
