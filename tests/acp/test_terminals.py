"""A client that offers terminals shows each command in one; the command runs on
Karyi's pty, so `<input>` still reaches it (ACP terminals have no stdin)."""

from __future__ import annotations

from typing import Any

from tests.acp.conftest import Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

ASK = '<tools><command>read -p "name? " n; echo "hello-$n"</command></tools>'
ANSWER = "<tools><input>world\\n</input></tools>"


def terminal_ids(updates: list[Any], call_id: str) -> list[str]:
    return [
        c.terminal_id
        for u in updates
        if u.tool_call_id == call_id
        for c in u.content or []
        if c.type == "terminal"
    ]


async def test_commands_show_in_client_terminals_and_input_reaches_the_pty(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text=ASK), Reply(text=ANSWER), Reply(text="Done."))
    agent = await karyi_acp(terminal=True)
    agent.client.answer = "allow_always"
    sid = await agent.new_session()
    assert (await agent.say(sid, "greet")).stop_reason == "end_turn"
    client = agent.client
    command, typed = (u.tool_call_id for u in client.of("tool_call"))
    updates = client.of("tool_call_update")
    (first,) = set(terminal_ids(updates, command))
    (second,) = set(terminal_ids(updates, typed))
    assert "name? " in client.terminals[first].output.decode()
    assert "hello-world" in client.terminals[second].output.decode()
    assert all(t.released for t in client.terminals.values())
    assert client.terminals[first].argv[1:3] == ["-m", "karyi.acp.follow"]
    assert "hello-world" in fake_llm.requests[2].body["messages"][-1]["content"]
