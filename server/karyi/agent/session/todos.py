"""The session's task list behind `ToolContext.todos`: kept in the conversation (and so
in the session store) and announced as a `Todos` event on every change, which
every front end shows (docs/workflow.md#task-list)."""

from __future__ import annotations

from collections.abc import Callable

from karyi.agent.events import Event, Todos
from karyi.agent.session.conversation import Conversation
from karyi.tools.context import TodoItem


class SessionTodos:
    """The `TodoBoard` of one conversation."""

    def __init__(self, conversation: Conversation, emit: Callable[[Event], None]) -> None:
        self.conversation = conversation
        self.emit = emit

    def items(self) -> list[TodoItem]:
        """The list as it stands."""
        return list(self.conversation.todos)

    def write(self, items: list[TodoItem]) -> None:
        """Replace the list, store it, and tell every front end."""
        self.conversation.todos = list(items)
        self.conversation.save_state()
        self.emit(Todos(tuple(items)))
