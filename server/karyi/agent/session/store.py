"""Sessions in SQLite (WAL) under the workspace's `.karyi/`: they survive restarts.

A session is a conversation: its messages (what the model saw and said), the tool calls
with their decisions and results, and the token usage of each turn. Everything written
here passes the session's redactor first, so a secret's value never lands in the file.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from karyi.agent.session.ids import new_session_id
from karyi.agent.session.store_db import best_effort, open_db, transaction, workspace_db_path
from karyi.agent.session.store_fork import SessionForks
from karyi.agent.session.store_messages import MessageRows

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    updated REAL NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    dialect TEXT NOT NULL DEFAULT '',
    profile TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS messages (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    turn_id TEXT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    tool_calls TEXT NOT NULL DEFAULT '[]',
    tool_call_id TEXT,
    name TEXT,
    is_error INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    reasoning TEXT NOT NULL DEFAULT '[]',
    images TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL DEFAULT '',
    copy INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS tool_calls (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turn_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    name TEXT NOT NULL,
    params TEXT NOT NULL,
    decision TEXT NOT NULL DEFAULT '',
    success INTEGER NOT NULL,
    error_code TEXT,
    result TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (session_id, turn_id, call_id)
);
CREATE TABLE IF NOT EXISTS turns (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turn_id TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL,
    stop_reason TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    checkpoint TEXT,
    prompt TEXT NOT NULL DEFAULT '',
    context TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, turn_id)
);
"""

UPGRADES = {
    "messages": [
        ("reasoning", "TEXT NOT NULL DEFAULT '[]'"),
        ("images", "TEXT NOT NULL DEFAULT '[]'"),
        ("status", "TEXT NOT NULL DEFAULT ''"),
        ("copy", "INTEGER NOT NULL DEFAULT 0"),
    ],
    "turns": [("prompt", "TEXT NOT NULL DEFAULT ''"), ("context", "TEXT NOT NULL DEFAULT ''")],
}
"""The columns a store written by an older Karyi lacks, with their definitions."""

Redactor = Callable[[str], str]


def _no_redaction(text: str) -> str:
    return text


def redact_deep(value: Any, redact: Redactor) -> Any:
    """Apply `redact` to every string inside a JSON-like value."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_deep(v, redact) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_deep(v, redact) for v in value]
    return value


@dataclass(frozen=True)
class SessionInfo:
    """A row of the session list."""

    id: str
    title: str
    created: float
    updated: float
    model: str
    dialect: str
    profile: str
    messages: int


@dataclass(frozen=True)
class ToolCallRecord:
    """One executed call as stored (parameters keep `$KARYI{}` placeholders)."""

    turn_id: str
    call_id: str
    name: str
    params: dict[str, Any]
    decision: str
    success: bool
    error_code: str | None
    result: dict[str, Any] = field(metadata={"typescript": "ToolResultJson"})


class SessionNotFound(LookupError):
    """No session with that id in this workspace."""


class SessionStore(MessageRows, SessionForks):
    """The workspace's session database: its sessions here, their messages in
    `MessageRows`, forks in `SessionForks`, their turns and calls below."""

    def __init__(self, path: Path, redact: Redactor = _no_redaction) -> None:
        self.path = path
        self.redact = redact
        self.unsaved: str | None = None
        """Why this store stopped saving (a full or read-only disk), None while it saves."""
        self._db = open_db(path, SCHEMA)
        self._upgrade()

    def _upgrade(self) -> None:
        """Add what a store written by an older Karyi lacks."""
        with self._tx() as db:  # one process upgrades; another finds it done
            columns = {r["name"] for r in db.execute("PRAGMA table_info(messages)")}
            for added, default in UPGRADES["messages"]:
                if added not in columns:
                    db.execute(f"ALTER TABLE messages ADD COLUMN {added} {default}")
            columns = {r["name"] for r in db.execute("PRAGMA table_info(turns)")}
            for added, default in UPGRADES["turns"]:
                if added not in columns:
                    db.execute(f"ALTER TABLE turns ADD COLUMN {added} {default}")

    @classmethod
    def for_workspace(cls, root: Path, redact: Redactor = _no_redaction) -> SessionStore:
        """The store at `<root>/.karyi/sessions.db` (the folder is kept out of git)."""
        return cls(workspace_db_path(root), redact)

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self._db, self.path)

    # -- sessions ------------------------------------------------------------------------

    def create(
        self,
        *,
        model: str = "",
        dialect: str = "",
        profile: str = "",
        title: str = "",
        sid: str | None = None,
    ) -> str:
        """A new, empty session; returns its id (`sid` when given: one a front end
        already told its client)."""
        sid = sid or new_session_id()
        now = time.time()
        with self._tx() as db:
            db.execute(
                "INSERT INTO sessions (id, title, created, updated, model, dialect, profile)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sid, self.redact(title), now, now, model, dialect, profile),
            )
        return sid

    def exists(self, sid: str) -> bool:
        """True when the session is in this store."""
        return (
            self._db.execute("SELECT 1 FROM sessions WHERE id = ?", (sid,)).fetchone() is not None
        )

    def require(self, sid: str) -> None:
        """Raise SessionNotFound with the ids that do exist."""
        if not self.exists(sid):
            known = [s.id for s in self.all()[:5]]
            hint = f"; recent sessions: {', '.join(known)}" if known else ""
            raise SessionNotFound(f"no session {sid!r} in {self.path}{hint}")

    def all(self) -> list[SessionInfo]:
        """Every session, most recently updated first."""
        rows = self._db.execute(
            "SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS n"
            " FROM sessions s ORDER BY updated DESC"
        ).fetchall()
        return [
            SessionInfo(
                r["id"],
                r["title"],
                r["created"],
                r["updated"],
                r["model"],
                r["dialect"],
                r["profile"],
                r["n"],
            )
            for r in rows
        ]

    def delete(self, sid: str) -> None:
        """Remove a session and everything recorded for it."""
        self.require(sid)
        with self._tx() as db:
            db.execute("DELETE FROM sessions WHERE id = ?", (sid,))

    @best_effort
    def set_title(self, sid: str, title: str) -> None:
        """Name the session (usually after its first request)."""
        with self._tx() as db:
            db.execute(
                "UPDATE sessions SET title = ? WHERE id = ?", (self.redact(title)[:200], sid)
            )

    def state(self, sid: str) -> dict[str, Any]:
        """Small per-session state the dialects need across restarts (e.g. used ids)."""
        row = self._db.execute("SELECT state FROM sessions WHERE id = ?", (sid,)).fetchone()
        return dict(json.loads(row["state"])) if row else {}

    @best_effort
    def save_state(self, sid: str, state: dict[str, Any]) -> None:
        """Replace the per-session state."""
        with self._tx() as db:
            db.execute("UPDATE sessions SET state = ? WHERE id = ?", (json.dumps(state), sid))

    # -- turns and calls -----------------------------------------------------------------

    @best_effort
    def start_turn(self, sid: str, turn_id: str, prompt: str = "", context: str = "") -> None:
        """Record that a turn began, with what the user typed and the editor's context
        (the transcript shows these, not the message the model was sent)."""
        with self._tx() as db:
            db.execute(
                "INSERT INTO turns (session_id, turn_id, started, prompt, context)"
                " VALUES (?, ?, ?, ?, ?)",
                (sid, turn_id, time.time(), self.redact(prompt), self.redact(context)),
            )

    @best_effort
    def finish_turn(
        self, sid: str, turn_id: str, stop_reason: str, input_tokens: int, output_tokens: int
    ) -> None:
        """Record how a turn ended and what it cost."""
        with self._tx() as db:
            db.execute(
                "UPDATE turns SET finished = ?, stop_reason = ?, input_tokens = ?,"
                " output_tokens = ? WHERE session_id = ? AND turn_id = ?",
                (time.time(), stop_reason, input_tokens, output_tokens, sid, turn_id),
            )

    @best_effort
    def set_checkpoint(self, sid: str, turn_id: str, checkpoint: str) -> None:
        """Remember the workspace snapshot taken before the turn changed files."""
        with self._tx() as db:
            db.execute(
                "UPDATE turns SET checkpoint = ? WHERE session_id = ? AND turn_id = ?",
                (checkpoint, sid, turn_id),
            )

    def turns(self, sid: str) -> list[dict[str, Any]]:
        """Every turn of a session with its stop reason, usage and checkpoint."""
        rows = self._db.execute(
            "SELECT * FROM turns WHERE session_id = ? ORDER BY started", (sid,)
        ).fetchall()
        return [dict(r) for r in rows]

    @best_effort
    def record_call(
        self,
        sid: str,
        turn_id: str,
        record: ToolCallRecord,
        started: float,
        finished: float,
    ) -> None:
        """Store one executed call with its decision and (redacted) result."""
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO tool_calls (session_id, turn_id, call_id, name, params,"
                " decision, success, error_code, result, started, finished)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    sid,
                    turn_id,
                    record.call_id,
                    record.name,
                    json.dumps(redact_deep(record.params, self.redact), ensure_ascii=False),
                    record.decision,
                    int(record.success),
                    record.error_code,
                    json.dumps(
                        redact_deep(record.result, self.redact), ensure_ascii=False, default=str
                    ),
                    started,
                    finished,
                ),
            )

    def calls(self, sid: str) -> list[ToolCallRecord]:
        """Every recorded call of a session, in execution order."""
        rows = self._db.execute(
            "SELECT * FROM tool_calls WHERE session_id = ? ORDER BY started", (sid,)
        ).fetchall()
        return [
            ToolCallRecord(
                r["turn_id"],
                r["call_id"],
                r["name"],
                json.loads(r["params"]),
                r["decision"],
                bool(r["success"]),
                r["error_code"],
                json.loads(r["result"]),
            )
            for r in rows
        ]
