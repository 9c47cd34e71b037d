"""A live conversation: its history, dialect state and persistence."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from karyi.agent.session.ids import new_session_id
from karyi.agent.session.store import SessionStore
from karyi.agent.session.store_db import not_saved
from karyi.core.storage import StorageUnavailable
from karyi.llm.base import Message
from karyi.protocol.calls import DialectState
from karyi.tools.context import TodoItem


@dataclass
class Conversation:
    """The messages of one session as the model sees them, kept in step with the store."""

    id: str
    store: SessionStore | None = None
    history: list[tuple[str, Message]] = field(default_factory=list)
    dialect_state: DialectState = field(default_factory=DialectState)
    title: str = ""
    approved: set[str] = field(default_factory=set)  # "allow always" for this session
    todos: list[TodoItem] = field(default_factory=list)
    """The task list the model keeps (`todo_write`, docs/workflow.md)."""
    mode: str = "act"
    """`plan` (only reading tools, the model answers with a plan) or `act`."""
    plan: str = ""
    """The plan the last plan-mode turn answered (or the user's edit of it), carried
    into the next act turn."""
    cost: float = 0.0
    """What the session's model calls cost so far, in USD (docs/workflow.md#cost)."""
    model_choices: dict[str, Any] = field(default_factory=dict)
    """The session's own model settings (`model`, `llm`), picked in an editor; empty:
    the settings' model (agent/host.py `AgentHost.choose`)."""
    unsaved: str | None = None
    """Why this new session could not be stored at all (docs/reliability.md)."""

    @classmethod
    def start(
        cls,
        store: SessionStore | None,
        *,
        model: str = "",
        dialect: str = "",
        profile: str = "",
        sid: str | None = None,
    ) -> Conversation:
        """A new session (persisted when a store is given), with the id `sid` if given."""
        if store is None:
            return cls(sid or "memory")
        sid = store.create(model=model, dialect=dialect, profile=profile, sid=sid)
        return cls(sid, store)

    @classmethod
    def start_or_unsaved(
        cls,
        open_store: Callable[[], SessionStore],
        *,
        model: str,
        dialect: str,
        profile: str,
        sid: str | None = None,
    ) -> Conversation:
        """A new stored session; on a full or read-only disk an unsaved one, which the turn
        still runs in and which says so (`not_saved`)."""
        try:
            store = open_store()
            return cls.start(store, model=model, dialect=dialect, profile=profile, sid=sid)
        except StorageUnavailable as exc:
            return cls(sid or new_session_id(), unsaved=not_saved(exc))

    @property
    def not_saved(self) -> str | None:
        """Why this session is not being saved (the user is told once), None while it is."""
        return self.unsaved or (self.store.unsaved if self.store is not None else None)

    @classmethod
    def resume(cls, store: SessionStore, sid: str) -> Conversation:
        """A stored session, with its history and used call ids."""
        store.require(sid)
        state = store.state(sid)
        dialect_state = DialectState(
            used_ids=set(state.get("used_ids", [])), calls_seen=int(state.get("calls_seen", 0))
        )
        history = [(r.turn_id, r.message) for r in store.message_rows(sid, live_only=True)]
        info = next((s for s in store.all() if s.id == sid), None)
        approved = set(state.get("approved", []))
        todos = [
            TodoItem(str(t["id"]), str(t["text"]), str(t["status"])) for t in state.get("todos", [])
        ]
        return cls(
            sid,
            store,
            history,
            dialect_state,
            info.title if info else "",
            approved,
            todos,
            str(state.get("mode", "act")),
            str(state.get("plan", "")),
            float(state.get("cost", 0.0)),
            dict(state.get("model_choices", {})),
        )

    @property
    def messages(self) -> list[Message]:
        """The history without turn ids."""
        return [m for _, m in self.history]

    def for_request(self) -> list[Message]:
        """The history as a request may carry it: a user message that follows another (the
        turn before failed without a reply, or stopped after tool results) joins it, so the
        roles alternate as every provider and chat template expects. The store keeps both."""
        out: list[Message] = []
        for message in self.messages:
            last = out[-1] if out else None
            if (
                last is not None
                and message.role == "user" == last.role
                and not message.tool_call_id
                and not last.tool_call_id
            ):
                joined = f"{last.content}\n\n{message.content}"
                images = last.images + message.images
                out[-1] = dataclasses.replace(last, content=joined, name=None, images=images)
            else:
                out.append(message)
        return out

    def add(self, turn_id: str, message: Message) -> None:
        """Append a message (and persist it)."""
        self.history.append((turn_id, message))
        if self.store is not None:
            self.store.append(self.id, turn_id, message)

    def replace(self, history: list[tuple[str, Message]]) -> None:
        """Swap in a compacted history (and persist it)."""
        self.history = history
        if self.store is not None:
            self.store.replace_messages(self.id, history)

    def rewind(self, turn_id: str) -> list[str]:
        """Drop the turn `turn_id` and every later one from what the model is sent (the
        store keeps them, marked rewound); returns the turns dropped, oldest first."""
        order = [str(t["turn_id"]) for t in self.store.turns(self.id)] if self.store else []
        for turn, _ in self.history:
            if turn not in order:
                order.append(turn)
        dropped = order[order.index(turn_id) :] if turn_id in order else []
        self.history = [(turn, m) for turn, m in self.history if turn not in dropped]
        if self.store is not None and dropped:
            self.store.rewind_turns(self.id, dropped)
        return dropped

    def save_state(self) -> None:
        """Persist what must survive a restart: used ids, approvals, the task list, the
        mode and the cost so far."""
        if self.store is not None:
            self.store.save_state(
                self.id,
                {
                    "used_ids": sorted(self.dialect_state.used_ids),
                    "calls_seen": self.dialect_state.calls_seen,
                    "approved": sorted(self.approved),
                    "todos": [dataclasses.asdict(t) for t in self.todos],
                    "mode": self.mode,
                    "plan": self.plan,
                    "cost": self.cost,
                    "model_choices": self.model_choices,
                },
            )

    def name(self, text: str) -> None:
        """Title the session after its first request."""
        if not self.title:
            self.title = text.strip().splitlines()[0][:80] if text.strip() else "(empty)"
            if self.store is not None:
                self.store.set_title(self.id, self.title)
