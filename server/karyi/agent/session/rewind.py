"""Rewind a session to one of the user's messages: the code, the conversation, or both.

- **The conversation**: that turn and every later one are no longer sent to the model;
  the store keeps them, marked rewound, and the transcript shows them as such.
- **The code**: the workspace goes back to the checkpoint taken before the first change
  at or after that turn. A file the agent did not change since (the user's own edit, or
  what a command wrote) is never overwritten unasked: it is kept, and listed, unless
  the caller names it in `overwrite`. The restore is itself undoable: the snapshot taken
  just before it is returned.

See docs/sessions.md#rewind.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from karyi.agent.session.checkpoints import Checkpoints
from karyi.agent.session.conversation import Conversation
from karyi.agent.session.store import SessionStore
from karyi.agent.session.transcript import CallBlock, Transcript

RewindWhat = Literal["code", "conversation", "both"]
FileEffect = Literal["modified", "created", "deleted"]


class HistoryError(ValueError):
    """A rewind or a fork cannot be done as asked; the message says why and what to do."""


@dataclass(frozen=True)
class FileChange:
    """What restoring the code would do to one file (`created`: it comes back), and
    whether a call of the rewound turns changed it (else it is the user's)."""

    path: str
    effect: FileEffect
    by_agent: bool


@dataclass(frozen=True)
class RewindPlan:
    """What a rewind to `turn_id` would do, for the user to see before it does it."""

    turn_id: str
    prompt: str
    """The message rewound to: a front end puts it back in the input."""
    turns: int
    """How many turns the conversation would drop (this one and every later one)."""
    checkpoint: str | None
    """The snapshot the code would go back to (None: nothing changed since)."""
    files: tuple[FileChange, ...]

    @property
    def users(self) -> tuple[str, ...]:
        """The files restoring would change that no rewound call changed."""
        return tuple(f.path for f in self.files if not f.by_agent)


@dataclass(frozen=True)
class Rewound:
    """What a rewind did."""

    plan: RewindPlan
    conversation: bool
    restored: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    undo_checkpoint: str | None = None


def plan_rewind(
    transcript: Transcript, store: SessionStore, checkpoints: Checkpoints | None, turn_id: str
) -> RewindPlan:
    """What rewinding `transcript`'s session to the turn `turn_id` would do."""
    live = [t for t in transcript.turns if t.status != "rewound"]
    ids = [t.id for t in live]
    if turn_id not in ids:
        known = ", ".join(ids[-5:]) or "none"
        raise HistoryError(f"no turn {turn_id!r} to rewind to in this session (latest: {known})")
    dropped = live[ids.index(turn_id) :]
    rows = {str(t["turn_id"]): t for t in store.turns(transcript.session_id)}
    checkpoint = next(
        (str(c) for t in dropped if (c := rows.get(t.id, {}).get("checkpoint"))), None
    )
    files: tuple[FileChange, ...] = ()
    if checkpoint is not None and checkpoints is not None:
        touched = {
            f.path for t in dropped for b in t.blocks if isinstance(b, CallBlock) for f in b.files
        }
        files = tuple(
            FileChange(path, _effect(effect), path in touched)
            for effect, path in checkpoints.changes_since(checkpoint)
        )
    return RewindPlan(turn_id, dropped[0].prompt, len(dropped), checkpoint, files)


def rewind(
    conversation: Conversation,
    checkpoints: Checkpoints | None,
    plan: RewindPlan,
    what: RewindWhat,
    overwrite: Collection[str] = (),
) -> Rewound:
    """Do `plan`: restore the code (`code`, `both`), drop the turns from the
    conversation (`conversation`, `both`). The user's files stay unless in `overwrite`."""
    restored: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    undo: str | None = None
    if what in ("code", "both") and plan.checkpoint is not None:
        if checkpoints is None:
            raise HistoryError("this workspace keeps no checkpoints: its code cannot be rewound")
        kept = tuple(p for p in plan.users if p not in overwrite)
        undo = checkpoints.restore(plan.checkpoint).id
        if kept:
            checkpoints.put_back(undo, kept)
        restored = tuple(f.path for f in plan.files if f.path not in kept)
    dropped = what in ("conversation", "both")
    if dropped:
        conversation.rewind(plan.turn_id)
    return Rewound(plan, dropped, restored, kept, undo)


def _effect(name: str) -> FileEffect:
    return "created" if name == "created" else "deleted" if name == "deleted" else "modified"
