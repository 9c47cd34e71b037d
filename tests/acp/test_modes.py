"""Session modes over ACP: `session/new` lists plan and act, `session/set_mode` switches
(a `current_mode_update` follows), a plan turn refuses an edit, and `/act` carries the
plan into the next turn."""

from __future__ import annotations

import pytest
from acp import RequestError

from tests.acp.conftest import Start, edit
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_plan_mode_over_acp(karyi_acp: Start, fake_llm: FakeModelServer) -> None:
    fake_llm.script(
        Reply(text=edit("src/main.py", "print('hi')", "print('hello')")),
        Reply(text="1. change the greeting"),
        Reply(text="Done."),
    )
    agent = await karyi_acp()
    created = await agent.conn.new_session(cwd=str(agent.root), mcp_servers=[])
    assert created.modes is not None and created.modes.current_mode_id == "act"
    assert [m.id for m in created.modes.available_modes] == ["act", "plan"]
    sid = created.session_id
    await agent.conn.set_session_mode(session_id=sid, mode_id="plan")
    (switched,) = await agent.client.wait_for(lambda: agent.client.of("current_mode_update"))
    assert switched.current_mode_id == "plan"
    await agent.say(sid, "say hello")
    # A refused call is announced with `tool_call` (failed, with the reason), never only
    # as an update for a call the client was not told of.
    (failed,) = agent.client.of("tool_call")
    assert failed.status == "failed" and failed.kind == "edit"
    assert "edit is not available in plan mode" in failed.content[-1].content.text
    assert not [
        u for u in agent.client.of("tool_call_update") if u.tool_call_id == failed.tool_call_id
    ]
    assert (agent.root / "src/main.py").read_text() == "print('hi')\n"
    await agent.say(sid, "/act")
    assert [u.current_mode_id for u in agent.client.of("current_mode_update")] == ["plan", "act"]
    assert fake_llm.requests[2].body["messages"][-1]["content"] == (
        "Carry out this plan, agreed in plan mode:\n\n1. change the greeting\n\nGo ahead."
    )
    with pytest.raises(RequestError, match="Invalid params"):
        await agent.conn.set_session_mode(session_id=sid, mode_id="yolo")
