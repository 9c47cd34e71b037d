"""No secret value reaches the client in any notification or request of a session."""

from __future__ import annotations

from pathlib import Path

from tests.acp.conftest import Start, edit, notifications
from tests.support.fake_model_server import FakeModelServer
from tests.support.karyi_process import run
from tests.support.replies import Reply

SECRET = "pw-9f8e7d6c5b4a"


async def test_a_secret_written_into_a_file_never_appears_in_an_update(
    karyi_acp: Start, fake_llm: FakeModelServer, ws_root: Path, _isolated_config: Path
) -> None:
    env = {"KARYI_CONFIG_DIR": str(_isolated_config)}
    assert run(["var", "set", "DB_PASSWORD"], stdin=SECRET, env=env).returncode == 0
    (ws_root / "app.env").write_text("DB_PASSWORD=unset\n")
    fake_llm.script(
        Reply(text=edit("app.env", "unset", "$KARYI{DB_PASSWORD}")),
        Reply(text="<tools><command>cat app.env</command></tools>"),
        Reply(text="Configured."),
    )
    agent = await karyi_acp()
    agent.client.answer = "allow_always"
    sid = await agent.new_session()
    assert (await agent.say(sid, "configure")).stop_reason == "end_turn"
    assert (ws_root / "app.env").read_text() == f"DB_PASSWORD={SECRET}\n"
    sent = notifications(agent.client)
    assert "$KARYI{DB_PASSWORD}" in sent
    assert SECRET not in sent
