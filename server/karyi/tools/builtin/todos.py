"""The task list the model keeps: `todo_write` replaces the whole list at once.

The list lives with the session (`agent/session/todos.py` behind `ToolContext.todos`), so it
survives a restart, and every change is an event every front end shows (the sidebar
above the chat, `karyi run`'s lines, ACP `plan` updates, the gateway's SSE). Writing
the whole list each time, as Claude Code's TodoWrite does, keeps one truth: the model
never has to patch an item it may remember wrongly. See docs/workflow.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.context import TodoItem, TodoStatus, ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class

MARKS = {"pending": "[ ]", "in_progress": "[>]", "done": "[x]"}


def render(items: list[TodoItem]) -> str:
    """The list as the model and a terminal read it: one `[x] id. text` line per item."""
    if not items:
        return "(the task list is empty)"
    return "\n".join(f"{MARKS.get(i.status, '[ ]')} {i.id}. {i.text}" for i in items)


@param_class
class Todo(ToolParams):
    """One item of the task list."""

    id: str = arg(min_length=1, description="stable id")
    text: str = arg(min_length=1, description="the task")
    status: TodoStatus = arg()


@param_class
class TodoWriteParams(ToolParams):
    """`todo_write`'s parameters."""

    todos: list[Todo] = arg(description="the complete task list, in order", items={})


class TodoWrite(TypedTool[TodoWriteParams]):
    """`todo_write(todos)`: the session's task list, replaced as a whole."""

    name = "todo_write"
    display_name = "Task list"
    description = (
        "Keep a task list for multi-step work: write the WHOLE list each time (it replaces "
        "the previous one), each item with an id, a short text and a status (pending, "
        "in_progress, done). Create it when a task needs three or more steps, mark an item "
        "in_progress before you start it and done as soon as it is finished; keep one item "
        "in_progress at a time. The user sees the list live."
    )
    example = {
        "todos": [
            {"id": "1", "text": "Read the parser", "status": "done"},
            {"id": "2", "text": "Fix the off-by-one", "status": "in_progress"},
            {"id": "3", "text": "Run the tests", "status": "pending"},
        ]
    }
    plan_safe = True

    def check(self, params: Mapping[str, Any]) -> str | None:
        """Ids must be unique: they are how the user and the model name an item."""
        ids = [t.id for t in self.args(params).todos]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        return f"todos: duplicate id(s) {', '.join(twice)}" if twice else None

    def describe(self, params: Mapping[str, Any]) -> str:
        todos = self.args(params).todos
        done = sum(1 for t in todos if t.status == "done")
        return f"Update the task list ({done}/{len(todos)} done)"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        if ctx.todos is None:
            raise ToolFailure(
                ErrorCode.DISABLED, "the task list needs an agent session; this context has none"
            )
        items = [TodoItem(t.id, t.text, t.status) for t in self.args(params).todos]
        ctx.todos.write(items)
        data = {"todos": [{"id": i.id, "text": i.text, "status": i.status} for i in items]}
        return ToolResult.ok(
            f"Task list updated:\n{render(items)}", data=data, display=render(items)
        )
