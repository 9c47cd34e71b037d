"""The task list over LSP: each `todo_write` reaches the client as a `todos` turnUpdate,
in the order written, and `karyi/loadSession` gives the list back."""

from __future__ import annotations

from tests.lsp.conftest import Start, request
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply
from tests.support.workflow import FIRST, SECOND, todo_reply


async def test_task_list_updates_arrive_in_order(lsp: Start, fake_llm: FakeModelServer) -> None:
    fake_llm.script(todo_reply(*FIRST), todo_reply(*SECOND), Reply(text="Done."))
    client = await lsp()
    result = await request(client, "karyi/chat", {"message": "fix it"})
    lists = [u["event"]["items"] for u in client.updates if u["event"]["type"] == "todos"]
    assert lists == [
        [{"id": i, "text": t, "status": s} for i, t, s in FIRST],
        [{"id": i, "text": t, "status": s} for i, t, s in SECOND],
    ]
    loaded = await request(client, "karyi/loadSession", {"sessionId": result.sessionId})
    assert [(t.id, t.text, t.status) for t in loaded.todos] == list(SECOND)
