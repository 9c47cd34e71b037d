"""Messages the user sends into a running turn: each reaches the model at the next tool
boundary, after the results of the calls that are running, before the next model
request. What the turn ends without delivering is handed back, for the front end to
send as the next message (docs/sessions.md#steer).
"""

from __future__ import annotations

from collections.abc import Callable

from karyi.agent.events import Event, Steered
from karyi.agent.session.conversation import Conversation
from karyi.agent.session.transcript import STEER, STEER_PREFIX
from karyi.llm.base import Message


class SteerInbox:
    """The messages waiting for the running turn's next tool boundary."""

    def __init__(self, emit: Callable[[Event], None]) -> None:
        self._emit = emit
        self._waiting: list[str] = []

    def add(self, text: str) -> None:
        """Hold `text` for the next boundary of the running turn."""
        self._waiting.append(text)

    def deliver(self, conversation: Conversation, turn_id: str) -> None:
        """Put every waiting message into the conversation, each announced."""
        waiting, self._waiting = self._waiting, []
        for text in waiting:
            conversation.add(turn_id, Message("user", STEER_PREFIX + text, name=STEER))
            self._emit(Steered(text))

    def take_rest(self) -> list[str]:
        """What no boundary took (the turn ended first), and forget it."""
        rest, self._waiting = self._waiting, []
        return rest
