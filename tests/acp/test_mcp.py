"""MCP servers the client names in session/new are started for that session."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from acp.schema import EnvVariable, McpServerStdio

from tests.acp.conftest import Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

REPO = Path(__file__).resolve().parents[2]
ADD = "Adding.<tool_call><name>calc__add</name><params><a>2</a><b>40</b></params></tool_call>"


async def test_a_client_mcp_server_serves_the_session(
    karyi_acp: Start, fake_llm: FakeModelServer, _isolated_config: Path
) -> None:
    (_isolated_config / "settings.json").write_text('{"dialect": "toolcall"}')
    fake_llm.script(Reply(text=ADD), Reply(text="It is 42."))
    agent = await karyi_acp()
    calc = McpServerStdio(
        name="calc",
        command=sys.executable,
        args=["-m", "tests.support.mcp_server", "stdio"],
        env=[EnvVariable(name="PYTHONPATH", value=str(REPO))],
    )
    made = await agent.conn.new_session(cwd=str(agent.root), mcp_servers=[calc])
    answer = await agent.say(made.session_id, "add 2 and 40")
    assert answer.stop_reason == "end_turn"
    (call,) = agent.client.of("tool_call")
    assert (call.kind, call.raw_input) == ("other", {"a": 2, "b": 40})
    done = agent.client.of("tool_call_update")[-1]
    assert done.status == "completed" and "42" in done.content[-1].content.text
    assert "42" in fake_llm.requests[1].body["messages"][-1]["content"]


async def test_the_organisations_list_refuses_a_client_mcp_server(
    karyi_acp: Start, fake_llm: FakeModelServer, _isolated_config: Path
) -> None:
    (_isolated_config / "settings.json").write_text('{"dialect": "toolcall"}')
    (_isolated_config / "managed-settings.json").write_text('{"mcpServers": {}}')
    fake_llm.script(Reply(text="Hello."))
    agent = await karyi_acp()
    calc = McpServerStdio(
        name="calc",
        command=sys.executable,
        args=["-m", "tests.support.mcp_server", "stdio"],
        env=[EnvVariable(name="PYTHONPATH", value=str(REPO))],
    )
    made = await agent.conn.new_session(cwd=str(agent.root), mcp_servers=[calc])
    answer = await agent.say(made.session_id, "hello")
    assert answer.stop_reason == "end_turn"
    assert "calc__add" not in json.dumps(fake_llm.requests[0].body)


async def test_a_new_session_says_which_settings_are_pinned(
    karyi_acp: Start, _isolated_config: Path
) -> None:
    (_isolated_config / "managed-settings.json").write_text('{"maxSteps": 40}')
    agent = await karyi_acp()
    made = await agent.conn.new_session(cwd=str(agent.root), mcp_servers=[])
    await agent.conn.set_session_mode(session_id=made.session_id, mode_id="act")  # opened
    said = [u.content.text for u in agent.client.of("agent_message_chunk")]
    managed = _isolated_config / "managed-settings.json"
    assert said == [f"1 setting pinned by your organisation ({managed}): maxSteps = 40"]
