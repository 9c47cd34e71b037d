"""What a permission request shows: the command, and whether it runs in the OS sandbox
(a command leaving the sandbox is never offered "always allow")."""

from __future__ import annotations

import json
from pathlib import Path

from tests.acp.conftest import Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_a_command_prompt_says_whether_it_runs_sandboxed(
    karyi_acp: Start, fake_llm: FakeModelServer, _isolated_config: Path
) -> None:
    settings = {
        "permissions": {"tools": {"command": "confirm"}},
        "shell": {"sandbox": {"autoApprove": False}},
    }
    (_isolated_config / "settings.json").write_text(json.dumps(settings))
    fake_llm.script(Reply(text="<tools><command>echo hi-there</command></tools>"), Reply(text="ok"))
    agent = await karyi_acp()
    sid = await agent.new_session()
    await agent.say(sid, "say hi")
    (asked, options) = agent.client.permissions[0]
    assert asked.kind == "execute"
    text = asked.content[0].content.text
    assert "echo hi-there" in text
    sandboxed = "Runs in the OS sandbox." in text
    assert sandboxed or "Runs NOT sandboxed." in text
    assert ("Runs in the OS sandbox." if sandboxed else "Runs NOT sandboxed.") in asked.title
    offered = [o.option_id for o in options]
    assert ("allow_always" in offered) == sandboxed
    done = agent.client.of("tool_call_update")[-1]
    assert done.status == "completed" and "hi-there" in done.content[-1].content.text
