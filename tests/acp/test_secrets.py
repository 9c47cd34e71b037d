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


async def test_a_plain_value_is_asked_through_a_form_and_a_secret_never(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(
        Reply(
            text='<tools><get_value key="STAGING_URL" reason="Which staging server?" '
            'secret="false"/></tools>'
        ),
        Reply(text='<tools><get_value key="DEPLOY_TOKEN" reason="To deploy"/></tools>'),
        Reply(text="Done."),
    )
    agent = await karyi_acp(initialize=False)
    await agent.initialize(forms=True)
    agent.client.form_answer = {"STAGING_URL": "https://staging.example"}
    sid = await agent.new_session()
    await agent.say(sid, "deploy")
    ((message, mode),) = agent.client.elicitations  # the secret was never asked
    assert message == "Which staging server?"
    assert list(mode.requested_schema.properties) == ["STAGING_URL"]
    asked_results = [u for u in agent.client.of("tool_call_update") if u.status == "completed"]
    assert "STAGING_URL: https://staging.example" in asked_results[0].content[-1].content.text
    failed = [u for u in agent.client.of("tool_call_update") if u.status == "failed"]
    assert "DEPLOY_TOKEN is a secret" in failed[0].content[-1].content.text
    assert "karyi var set DEPLOY_TOKEN" in failed[0].content[-1].content.text


async def test_authenticate_finds_a_key_stored_by_karyi_var(
    karyi_acp: Start, _isolated_config: Path
) -> None:
    agent = await karyi_acp(
        env_changes={"KARYI_BASE_URL": None, "OPENAI_API_KEY": None, "KARYI_API_KEY": None}
    )
    env = {"KARYI_CONFIG_DIR": str(_isolated_config)}
    assert run(["var", "set", "OPENAI_API_KEY"], stdin="sk-stored", env=env).returncode == 0
    await agent.conn.authenticate(method_id="api-key")  # no auth_required: the key is there
    login = run(["login"], stdin="sk-typed\n", env=env)  # not a terminal: it says how
    assert login.returncode == 2 and "needs a terminal" in login.stderr
