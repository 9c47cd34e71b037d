"""The task list: `todo_write` through a real turn, stored with the session, announced as
`todos` events in the order the model wrote them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from karyi.agent.events import Event, Todos
from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.agent.session.conversation import Conversation
from karyi.settings import Settings
from karyi.tools.context import TodoItem
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply
from tests.support.workflow import todo_reply


@pytest_asyncio.fixture
async def runtime(fake_llm: FakeModelServer, ws_root: Path) -> AsyncIterator[Runtime]:
    settings = Settings().with_values(model="openai:test-model", baseUrl=fake_llm.openai_url)
    rt = Runtime.open(ws_root, settings)
    yield rt
    await rt.aclose()


async def test_todo_write_is_stored_and_announced_in_order(
    runtime: Runtime, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(
        todo_reply(("1", "Read", "in_progress"), ("2", "Fix", "pending")),
        todo_reply(("1", "Read", "done"), ("2", "Fix", "done")),
        Reply(text="All done."),
    )
    conv = runtime.conversation()
    agent = runtime.agent(conv, approver=approve_all)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    result = await agent.run("fix it")
    assert result.final_answer == "All done."
    lists = [e.items for e in seen if isinstance(e, Todos)]
    assert lists == [
        (TodoItem("1", "Read", "in_progress"), TodoItem("2", "Fix", "pending")),
        (TodoItem("1", "Read", "done"), TodoItem("2", "Fix", "done")),
    ]
    assert Todos(lists[0]).to_dict() == {
        "type": "todos",
        "items": [
            {"id": "1", "text": "Read", "status": "in_progress"},
            {"id": "2", "text": "Fix", "status": "pending"},
        ],
    }
    assert "[x] 2. Fix" in fake_llm.requests[2].body["messages"][-1]["content"]
    resumed = Conversation.resume(runtime.store, conv.id)
    assert resumed.todos == [TodoItem("1", "Read", "done"), TodoItem("2", "Fix", "done")]


async def test_duplicate_ids_are_refused_and_the_list_is_unchanged(
    runtime: Runtime, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(todo_reply(("1", "A", "pending"), ("1", "B", "pending")), Reply(text="ok"))
    conv = runtime.conversation()
    agent = runtime.agent(conv, approver=approve_all)
    await agent.run("plan")
    assert conv.todos == []
    assert "duplicate id(s) 1" in fake_llm.requests[1].body["messages"][-1]["content"]
