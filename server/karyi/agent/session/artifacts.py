"""Artifacts: versioned documents of a session (the `research` tools), in the session database.

Every change is a new version; every version is kept, so any earlier one can be read.
The table lives in the workspace's `sessions.db` next to the sessions it belongs to
(deleting a session deletes its artifacts: the foreign key cascades), through a
connection of its own. Content is redacted before it is written, like everything else
in the store. A conversation that is not persisted keeps its artifacts in memory.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.tools.context import Artifact

SCHEMA = """
CREATE TABLE IF NOT EXISTS artifacts (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    artifact_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    title TEXT NOT NULL,
    content_type TEXT NOT NULL,
    content TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (session_id, artifact_id, version)
);
"""


class ArtifactStore:
    """Artifact versions of every session in one database (or in memory)."""

    def __init__(self, path: Path | None, redact: Callable[[str], str] = lambda t: t) -> None:
        self.redact = redact
        try:
            self._db = _connect(str(path) if path is not None else ":memory:")
        except sqlite3.Error:  # a full or read-only disk: kept in memory, the turn goes on
            self._db = _connect(":memory:")
        self._lock = threading.Lock()

    def book(self, session_id: str) -> SessionArtifacts:
        """The artifacts of one session."""
        return SessionArtifacts(self, session_id)

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def _latest(self, sid: str, aid: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self._db.execute(
            "SELECT * FROM artifacts WHERE session_id = ? AND artifact_id = ?"
            " ORDER BY version DESC LIMIT 1",
            (sid, aid),
        ).fetchone()
        return row

    def _insert(self, sid: str, art: Artifact) -> None:
        self._db.execute(
            "INSERT INTO artifacts (session_id, artifact_id, version, title, content_type,"
            " content, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (sid, art.id, art.version, art.title, art.content_type, art.content, art.created),
        )


def _connect(target: str) -> sqlite3.Connection:
    db = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
    try:
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA busy_timeout=5000")
        db.executescript(SCHEMA)
    except sqlite3.Error:
        db.close()
        raise
    return db


def _artifact(row: sqlite3.Row) -> Artifact:
    return Artifact(
        row["artifact_id"],
        row["title"],
        row["content_type"],
        row["version"],
        row["content"],
        row["created"],
    )


class SessionArtifacts:
    """One session's artifacts: the `ArtifactBook` the artifact tools use."""

    def __init__(self, store: ArtifactStore, session_id: str) -> None:
        self.store = store
        self.session_id = session_id

    def _missing(self, artifact_id: str) -> ToolFailure:
        known = [a.id for a in self.list()]
        have = f"; artifacts of this session: {', '.join(known)}" if known else "; none exist yet"
        return ToolFailure(ErrorCode.NOT_FOUND, f"no artifact {artifact_id!r}{have}")

    def create(self, artifact_id: str, title: str, content_type: str, content: str) -> Artifact:
        """See `ArtifactBook.create`."""
        s = self.store
        with s._lock:
            if s._latest(self.session_id, artifact_id) is not None:
                raise ToolFailure(
                    ErrorCode.CONFLICT,
                    f"artifact {artifact_id!r} already exists; change it with update_artifact "
                    "or rewrite_artifact, or choose another id",
                )
            art = Artifact(
                artifact_id, s.redact(title), content_type, 1, s.redact(content), time.time()
            )
            s._insert(self.session_id, art)
        return art

    def read(self, artifact_id: str, version: int | None = None) -> Artifact:
        """See `ArtifactBook.read`."""
        s = self.store
        latest = s._latest(self.session_id, artifact_id)
        if latest is None:
            raise self._missing(artifact_id)
        if version is None or version == latest["version"]:
            return _artifact(latest)
        row = s._db.execute(
            "SELECT * FROM artifacts WHERE session_id = ? AND artifact_id = ? AND version = ?",
            (self.session_id, artifact_id, version),
        ).fetchone()
        if row is None:
            raise ToolFailure(
                ErrorCode.NOT_FOUND,
                f"artifact {artifact_id!r} has no version {version}; versions 1 to "
                f"{latest['version']} exist",
            )
        return _artifact(row)

    def save(self, artifact_id: str, content: str, *, base_version: int) -> Artifact:
        """See `ArtifactBook.save`."""
        s = self.store
        with s._lock:
            latest = s._latest(self.session_id, artifact_id)
            if latest is None:
                raise self._missing(artifact_id)
            if latest["version"] != base_version:
                raise ToolFailure(
                    ErrorCode.CONFLICT,
                    f"artifact {artifact_id!r} changed (now version {latest['version']}); "
                    "read it again",
                )
            art = Artifact(
                artifact_id,
                latest["title"],
                latest["content_type"],
                base_version + 1,
                s.redact(content),
                time.time(),
            )
            s._insert(self.session_id, art)
        return art

    def list(self) -> list[Artifact]:
        """See `ArtifactBook.list`."""
        rows = self.store._db.execute(
            "SELECT a.* FROM artifacts a WHERE a.session_id = ? AND a.version ="
            " (SELECT MAX(version) FROM artifacts b WHERE b.session_id = a.session_id"
            " AND b.artifact_id = a.artifact_id) ORDER BY a.created, a.artifact_id",
            (self.session_id,),
        ).fetchall()
        return [_artifact(r) for r in rows]
