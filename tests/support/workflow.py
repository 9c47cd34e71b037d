"""Model replies the workflow tests share (task list, plan mode, hooks, cost)."""

from __future__ import annotations

from tests.support.replies import Reply


def todo_reply(*items: tuple[str, str, str]) -> Reply:
    """A toolsxml reply that writes the task list `items` (id, text, status)."""
    body = "".join(
        f'<todos>{{"id": "{i}", "text": "{t}", "status": "{s}"}}</todos>' for i, t, s in items
    )
    return Reply(text=f"<tools><todo_write>{body}</todo_write></tools>")


FIRST = (("1", "Read", "in_progress"), ("2", "Fix", "pending"))
SECOND = (("1", "Read", "done"), ("2", "Fix", "done"))
