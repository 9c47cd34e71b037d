"""Past sessions are listed and loaded over LSP with no model configured at all."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import Start, request
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

NO_MODEL = {"OPENAI_API_KEY": "", "KARYI_API_KEY": ""}
"""The environment of a user with no API key: the model cannot be built."""


async def test_sessions_list_and_load_without_a_model(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="First."))
    first = await lsp()
    result = await request(first, "karyi/chat", {"message": "remember me"})
    await first.shutdown_session()
    second = await lsp(settings={"model": "openai:gpt-4.1", "baseUrl": ""}, env=NO_MODEL)
    listed = await request(second, "karyi/sessions", {})
    assert [s.id for s in listed.sessions] == [result.sessionId]
    loaded = await request(second, "karyi/loadSession", {"sessionId": result.sessionId})
    [turn] = loaded.transcript.turns
    assert turn.prompt == "remember me" and turn.blocks[0].text == "First."
    with pytest.raises(JsonRpcException) as refused:
        await request(second, "karyi/chat", {"sessionId": result.sessionId, "message": "again"})
    assert "no API key for openai:gpt-4.1" in refused.value.message
    assert len(fake_llm.requests) == 1
