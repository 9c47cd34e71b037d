"""A stored session copied into a new one up to a turn: what a fork starts from.

Everything the session keeps for those turns is copied as it is (the messages with their
status, the turns, the calls) with its per-session state (used call ids, approvals, the
task list, the mode); turns rewound out of the conversation are left behind. The new
session has its own id and is titled after the old one. See docs/sessions.md#fork.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager

from karyi.agent.session.ids import new_session_id
from karyi.agent.session.store_messages import REWOUND


class SessionForks:
    """The fork half of `SessionStore` (agent/session/store.py), which provides the
    database's transactions."""

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def fork(self, sid: str, turn_ids: Sequence[str]) -> str:
        """A new session holding `sid`'s turns `turn_ids`; its id (StorageUnavailable:
        the disk refused it, and nothing was written)."""
        new = new_session_id()
        now = time.time()
        marks = ", ".join("?" for _ in turn_ids) or "NULL"
        with self._tx() as db:
            _copy(db, sid, new, now, marks, tuple(turn_ids))
        return new


def _copy(
    db: sqlite3.Connection, sid: str, new: str, now: float, marks: str, turn_ids: tuple[str, ...]
) -> None:
    """Every row of `sid`'s turns `turn_ids` again under the session `new`."""
    db.execute(
        "INSERT INTO sessions (id, title, created, updated, model, dialect, profile, state)"
        " SELECT ?, substr(title || ' (fork)', 1, 200), ?, ?, model, dialect, profile, state"
        " FROM sessions WHERE id = ?",
        (new, now, now, sid),
    )
    db.execute(
        "INSERT INTO messages (session_id, seq, turn_id, role, content, tool_calls,"
        " tool_call_id, name, is_error, created, reasoning, images, status, copy)"
        " SELECT ?, seq, turn_id, role, content, tool_calls, tool_call_id, name, is_error,"
        " created, reasoning, images, status, copy FROM messages"
        f" WHERE session_id = ? AND turn_id IN ({marks}) AND status != ?",
        (new, sid, *turn_ids, REWOUND),
    )
    db.execute(
        "INSERT INTO turns (session_id, turn_id, started, finished, stop_reason,"
        " input_tokens, output_tokens, checkpoint, prompt, context)"
        " SELECT ?, turn_id, started, finished, stop_reason, input_tokens, output_tokens,"
        f" checkpoint, prompt, context FROM turns WHERE session_id = ? AND turn_id IN ({marks})",
        (new, sid, *turn_ids),
    )
    db.execute(
        "INSERT INTO tool_calls (session_id, turn_id, call_id, name, params, decision,"
        " success, error_code, result, started, finished)"
        " SELECT ?, turn_id, call_id, name, params, decision, success, error_code, result,"
        f" started, finished FROM tool_calls WHERE session_id = ? AND turn_id IN ({marks})",
        (new, sid, *turn_ids),
    )
