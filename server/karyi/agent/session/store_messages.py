"""A session's messages in the store: what the model is sent, and what the user saw.

Each row is either an original (a message as it was said) or a copy (a message written
again when the history was compacted for the model). The model is sent the live rows
(`status` ''); the transcript (agent/session/transcript.py) reads the originals, live
or not, so compacting never takes a turn out of what the user sees. A row's `status`:

- `''`: live, sent to the model;
- `compacted`: an original the model's history no longer holds as it was;
- `superseded`: a copy that a later compaction replaced (never shown);
- `rewound`: taken out of the conversation by a rewind (agent/session/rewind.py).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from karyi.agent.session.store_db import best_effort
from karyi.core.images import Image
from karyi.llm.base import Message, NativeCall

LIVE = ""
COMPACTED = "compacted"
SUPERSEDED = "superseded"
REWOUND = "rewound"


@dataclass(frozen=True)
class MessageRow:
    """One stored message with its place: the transcript groups and marks by these."""

    seq: int
    turn_id: str
    status: str
    copy: bool
    message: Message


class MessageRows:
    """The message half of `SessionStore` (agent/session/store.py), which provides the
    database, its transactions and the redactor."""

    redact: Callable[[str], str]
    unsaved: str | None
    _db: sqlite3.Connection

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    @best_effort
    def append(self, sid: str, turn_id: str, message: Message) -> None:
        """Add one message at the end of the session's history."""
        self._insert(sid, turn_id, message, copy=False)

    def _insert(self, sid: str, turn_id: str, message: Message, *, copy: bool) -> None:
        calls = [
            {"id": c.id, "name": c.name, "arguments": self.redact(c.arguments)}
            for c in message.tool_calls
        ]
        # A signed reasoning block is kept whole or not at all: redacting inside it would
        # break its signature (and a secret never reaches the model to be thought about).
        reasoning = json.dumps(list(message.reasoning))
        if self.redact(reasoning) != reasoning:
            reasoning = "[]"
        now = time.time()
        with self._tx() as db:
            seq = db.execute(
                "SELECT COALESCE(MAX(seq), -1) + 1 FROM messages WHERE session_id = ?", (sid,)
            ).fetchone()[0]
            db.execute(
                "INSERT INTO messages (session_id, seq, turn_id, role, content, tool_calls,"
                " tool_call_id, name, is_error, created, reasoning, images, copy)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    sid,
                    seq,
                    turn_id,
                    message.role,
                    self.redact(message.content),
                    json.dumps(calls),
                    message.tool_call_id,
                    message.name,
                    int(message.is_error),
                    now,
                    reasoning,
                    json.dumps([i.to_json() for i in message.images]),
                    int(copy),
                ),
            )
            db.execute("UPDATE sessions SET updated = ? WHERE id = ?", (now, sid))

    def messages(self, sid: str) -> list[Message]:
        """The session's history as the model is sent it, in order."""
        return [r.message for r in self.message_rows(sid, live_only=True)]

    def message_rows(self, sid: str, *, live_only: bool = False) -> list[MessageRow]:
        """Every stored message of the session with its turn and status, in order
        (`live_only`: only what the model is sent)."""
        where = "session_id = ? AND status = ''" if live_only else "session_id = ?"
        rows = self._db.execute(
            f"SELECT * FROM messages WHERE {where} ORDER BY seq", (sid,)
        ).fetchall()
        return [
            MessageRow(r["seq"], r["turn_id"], r["status"], bool(r["copy"]), _message(r))
            for r in rows
        ]

    @best_effort
    def replace_messages(self, sid: str, messages: list[tuple[str, Message]]) -> None:
        """Rewrite the history the model is sent (after compaction); pairs of (turn_id,
        message). The originals stay for the transcript, marked compacted."""
        with self._tx() as db:
            db.execute(
                "UPDATE messages SET status = CASE copy WHEN 1 THEN ? ELSE ? END"
                " WHERE session_id = ? AND status = ''",
                (SUPERSEDED, COMPACTED, sid),
            )
        for turn_id, message in messages:
            self._insert(sid, turn_id, message, copy=True)

    @best_effort
    def rewind_turns(self, sid: str, turn_ids: list[str]) -> None:
        """Take the messages of `turn_ids` out of the conversation, kept as rewound."""
        marks = ", ".join("?" for _ in turn_ids)
        with self._tx() as db:
            db.execute(
                f"UPDATE messages SET status = ? WHERE session_id = ? AND turn_id IN ({marks})"
                " AND status IN ('', ?)",
                (REWOUND, sid, *turn_ids, COMPACTED),
            )


def _message(r: sqlite3.Row) -> Message:
    return Message(
        role=r["role"],
        content=r["content"],
        tool_calls=tuple(
            NativeCall(c["id"], c["name"], c["arguments"]) for c in json.loads(r["tool_calls"])
        ),
        tool_call_id=r["tool_call_id"],
        name=r["name"],
        is_error=bool(r["is_error"]),
        reasoning=tuple(json.loads(r["reasoning"])),
        images=tuple(Image.from_json(i) for i in json.loads(r["images"])),
    )
