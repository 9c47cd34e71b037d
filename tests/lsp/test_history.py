"""Sessions over LSP: listed, loaded, continued and deleted across a server restart."""

from __future__ import annotations

from karyi.core.plain_json import plain
from tests.lsp.conftest import Start, request
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_sessions_survive_a_server_restart(lsp: Start, fake_llm: FakeModelServer) -> None:
    fake_llm.script(Reply(text="First."), Reply(text="Second."))
    first = await lsp()
    result = await request(first, "karyi/chat", {"message": "remember me"})
    await first.shutdown_session()
    second = await lsp()
    listed = await request(second, "karyi/sessions", {})
    assert [s.id for s in listed.sessions] == [result.sessionId]
    assert listed.sessions[0].title == "remember me"
    loaded = await request(second, "karyi/loadSession", {"sessionId": result.sessionId})
    assert [m.role for m in loaded.messages] == ["user", "assistant"]
    again = await request(second, "karyi/chat", {"sessionId": result.sessionId, "message": "again"})
    assert again.finalAnswer == "Second."
    sent = [m["content"] for m in fake_llm.requests[-1].body["messages"][1:]]
    assert sent == ["remember me", "First.", "again"]
    deleted = await request(second, "karyi/deleteSession", {"sessionId": result.sessionId})
    assert plain(deleted) == {"deleted": result.sessionId}
    assert (await request(second, "karyi/sessions", {})).sessions == []
