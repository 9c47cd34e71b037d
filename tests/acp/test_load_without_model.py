"""`session/load` with no model configured: the history is shown, a prompt is refused
with the sentence that says what to set."""

from __future__ import annotations

import pytest
from acp import RequestError

from tests.acp.conftest import Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

NO_MODEL: dict[str, str | None] = {
    "KARYI_MODEL": "openai:gpt-4.1",
    "KARYI_BASE_URL": None,
    "OPENAI_API_KEY": None,
    "KARYI_API_KEY": None,
}


async def test_load_replays_the_history_without_a_model(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="It says hello."))
    first = await karyi_acp()
    sid = await first.new_session()
    await first.say(sid, "What does the README say?")

    second = await karyi_acp(env_changes=NO_MODEL)
    await second.conn.load_session(cwd=str(second.root), session_id=sid, mcp_servers=[])
    assert second.client.message_text() == "It says hello."
    with pytest.raises(RequestError) as refused:
        await second.say(sid, "And now?")
    assert "no API key for openai:gpt-4.1" in refused.value.data["message"]
    assert len(fake_llm.requests) == 1
