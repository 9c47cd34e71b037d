"""`todo_write`: the whole list replaces the last one, ids are unique, and without a
session to keep it the call fails clearly."""

from __future__ import annotations

import dataclasses

from karyi.tools.context import TodoItem, ToolContext
from tests.support.tool_calls import call, code


class Board:
    """A task list in memory, as the agent's `SessionTodos` keeps it."""

    def __init__(self) -> None:
        self.lists: list[list[TodoItem]] = []

    def items(self) -> list[TodoItem]:
        return self.lists[-1] if self.lists else []

    def write(self, items: list[TodoItem]) -> None:
        self.lists.append(items)


TODOS = [
    {"id": "1", "text": "Read", "status": "done"},
    {"id": "2", "text": "Fix", "status": "in_progress"},
]


async def test_the_list_is_written_whole(ctx: ToolContext) -> None:
    board = Board()
    result = await call("karyi.todo_write", {"todos": TODOS}, dataclasses.replace(ctx, todos=board))
    assert board.lists == [[TodoItem("1", "Read", "done"), TodoItem("2", "Fix", "in_progress")]]
    assert result.llm_content == "Task list updated:\n[x] 1. Read\n[>] 2. Fix"
    assert result.data == {"todos": TODOS}


async def test_duplicate_ids_and_unknown_statuses_are_refused(ctx: ToolContext) -> None:
    board = Board()
    bctx = dataclasses.replace(ctx, todos=board)
    twice = await call("karyi.todo_write", {"todos": [TODOS[0], TODOS[0]]}, bctx)
    assert code(twice) == "invalid_tool_input" and "duplicate id(s) 1" in twice.llm_content
    odd = await call("karyi.todo_write", {"todos": [{**TODOS[0], "status": "later"}]}, bctx)
    assert code(odd) == "invalid_tool_input"
    assert board.lists == []


async def test_without_a_session_the_call_fails_clearly(ctx: ToolContext) -> None:
    result = await call("karyi.todo_write", {"todos": TODOS}, ctx)
    assert code(result) == "tool_disabled" and "needs an agent session" in result.llm_content
