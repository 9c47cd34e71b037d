"""The session lifecycle of the stable schema: `session/list` (also with no model
configured), `session/resume` in a new process, `session/close`, `session/delete`,
config options (the model the fake server then sees, the mode kept in step), the title
update, and signing in and out (`authenticate`, a prompt without a key, `logout`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    BooleanConfigOptionCapabilities,
    ClientCapabilities,
    ClientSessionCapabilities,
    SessionConfigOptionBoolean,
    SessionConfigOptionsCapabilities,
)

from karyi.acp import listing
from karyi.secrets.store import SecretStore
from tests.acp.conftest import Start
from tests.support.fake_model_server import FakeModelServer, Reply

NO_KEY: dict[str, str | None] = {
    "KARYI_BASE_URL": None,
    "OPENAI_API_KEY": None,
    "KARYI_API_KEY": None,
}


async def test_list_resume_close_delete(karyi_acp: Start, fake_llm: FakeModelServer) -> None:
    fake_llm.script(Reply(text="Hello."), Reply(text="Again."))
    first = await karyi_acp()
    sid = await first.new_session()
    await first.say(sid, "Say hello\nplease")
    (info,) = first.client.of("session_info_update")
    assert info.title == "Say hello" and info.updated_at.endswith("Z")
    listed = await first.conn.list_sessions(cwd=str(first.root))
    assert [(s.session_id, s.title, s.cwd) for s in listed.sessions] == [
        (sid, "Say hello", str(first.root))
    ]
    assert listed.next_cursor is None

    second = await karyi_acp(env_changes={"KARYI_MODEL": "nosuch:model", **NO_KEY})
    assert [s.session_id for s in (await second.conn.list_sessions()).sessions] == [sid]
    with pytest.raises(RequestError) as bad:
        await second.conn.list_sessions(cursor="x")
    assert bad.value.code == -32602

    third = await karyi_acp()
    resumed = await third.conn.resume_session(cwd=str(third.root), session_id=sid)
    assert resumed.modes is not None and resumed.config_options
    await third.say(sid, "again")
    assert not third.client.of("user_message_chunk")  # no history replayed
    assert [m["role"] for m in fake_llm.requests[1].body["messages"]][-3:] == [
        "user",
        "assistant",
        "user",
    ]
    await third.conn.close_session(session_id=sid)
    with pytest.raises(RequestError) as closed:
        await third.say(sid, "still there?")
    assert closed.value.code == -32602
    await third.conn._conn.send_request("session/delete", {"sessionId": sid})
    assert (await third.conn.list_sessions(cwd=str(third.root))).sessions == []
    with pytest.raises(RequestError) as gone:
        await third.conn._conn.send_request("session/delete", {"sessionId": sid})
    assert gone.value.code == -32002


def _values(options: list[Any] | None, config_id: str) -> list[str]:
    return [v.value for v in {o.id: o for o in options or []}[config_id].options]


async def test_model_and_mode_config_options(
    karyi_acp: Start, fake_llm: FakeModelServer, _isolated_config: Path
) -> None:
    (_isolated_config / "settings.json").write_text(
        json.dumps({"models": ["openai:other-model", "anthropic:claude-test"]})
    )
    fake_llm.listed_models = ["listed-model", "other-model"]
    fake_llm.script(Reply(text="From the other model."), Reply(text="From the listed one."))
    agent = await karyi_acp()
    created = await agent.conn.new_session(cwd=str(agent.root), mcp_servers=[])
    assert [o.id for o in created.config_options or []] == ["mode"]  # the rest follows
    sid = created.session_id
    opened = await agent.opened(sid)
    options = {o.id: o for o in opened}
    assert options["model"].current_value == "openai:test-model"
    configured = ["openai:test-model", "openai:other-model", "anthropic:claude-test"]
    assert _values(opened, "model") == configured  # not waiting for /models
    assert "thinking" not in options  # an OpenAI model has no thinking budget
    # The server's list follows, as the VS Code picker lists it (agent/models.py).
    listed = await agent.client.wait_for(lambda: agent.client.of("config_option_update")[1:])
    assert _values(listed[0].config_options, "model") == [*configured, "openai:listed-model"]
    changed = await agent.conn.set_config_option(
        config_id="model", session_id=sid, value="openai:other-model"
    )
    assert {o.id: o.current_value for o in changed.config_options}["model"] == (
        "openai:other-model"
    )
    await agent.say(sid, "hi")
    assert fake_llm.requests[-1].body["model"] == "other-model"
    await agent.conn.set_config_option(
        config_id="model", session_id=sid, value="openai:listed-model"
    )
    await agent.say(sid, "and you?")
    assert fake_llm.requests[-1].body["model"] == "listed-model"
    again = await agent.conn.new_session(cwd=str(agent.root), mcp_servers=[])
    assert "openai:listed-model" in _values(await agent.opened(again.session_id), "model")
    with pytest.raises(RequestError) as bad:
        await agent.conn.set_config_option(config_id="model", session_id=sid, value="x:y")
    assert bad.value.code == -32602

    await agent.conn.set_config_option(config_id="mode", session_id=sid, value="plan")
    assert [u.current_mode_id for u in agent.client.of("current_mode_update")] == ["plan"]
    seen = len(agent.client.of("config_option_update"))  # the sessions' openings, the list
    await agent.conn.set_session_mode(session_id=sid, mode_id="act")
    (update,) = await agent.client.wait_for(lambda: agent.client.of("config_option_update")[seen:])
    assert {o.id: o.current_value for o in update.config_options}["mode"] == "act"

    claude = await agent.conn.set_config_option(
        config_id="model", session_id=sid, value="anthropic:claude-test"
    )
    thinking = {o.id: o for o in claude.config_options}["thinking"]
    assert thinking.current_value == "0" and thinking.category == "thought_level"
    assert "prompt_caching" not in {o.id for o in claude.config_options}  # no boolean caps
    await agent.conn.set_config_option(config_id="thinking", session_id=sid, value="4096")

    later = await karyi_acp()  # a new process: the session keeps its choices
    resumed = await later.conn.resume_session(cwd=str(later.root), session_id=sid)
    kept = {o.id: o.current_value for o in resumed.config_options or []}
    assert kept == {"model": "anthropic:claude-test", "mode": "act", "thinking": "4096"}


async def test_thinking_budget_and_a_boolean_option(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="Thought about it."))
    claude = {
        "KARYI_MODEL": "anthropic:claude-test",
        "KARYI_BASE_URL": fake_llm.anthropic_url,
        "ANTHROPIC_API_KEY": "sk-ant-test",
    }
    agent = await karyi_acp(env_changes=claude, initialize=False)
    booleans = SessionConfigOptionsCapabilities(boolean=BooleanConfigOptionCapabilities())
    caps = ClientCapabilities(session=ClientSessionCapabilities(config_options=booleans))
    await agent.conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps)
    created = await agent.conn.new_session(cwd=str(agent.root), mcp_servers=[])
    sid = created.session_id
    opened = await agent.opened(sid)
    options = {o.id: o for o in opened}
    assert options["prompt_caching"] == SessionConfigOptionBoolean(
        type="boolean",
        id="prompt_caching",
        name="Prompt caching",
        description="Cache the system prompt and the conversation so far "
        "(cheaper, faster repeated turns)",
        category="model_config",
        current_value=True,
    )
    assert _values(opened, "thinking") == ["0", "4096", "16000", "32000"]
    set_option = "session/set_config_option"
    for wrong in (
        {"configId": "prompt_caching", "value": "false"},  # a string for a boolean
        {"configId": "thinking", "type": "boolean", "value": True},  # a boolean for a select
    ):
        with pytest.raises(RequestError) as bad:
            await agent.conn._conn.send_request(set_option, {"sessionId": sid, **wrong})
        assert bad.value.code == -32602, wrong
    await agent.conn.set_config_option(config_id="thinking", session_id=sid, value="4096")
    off = {"sessionId": sid, "configId": "prompt_caching", "type": "boolean", "value": False}
    answer = await agent.conn._conn.send_request(set_option, off)
    current = {o["id"]: o["currentValue"] for o in answer["configOptions"]}
    assert current == {
        "model": "anthropic:claude-test",
        "mode": "act",
        "thinking": "4096",  # kept by the second change
        "prompt_caching": False,
    }
    await agent.say(sid, "Think first")
    body = fake_llm.requests[-1].body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert "cache_control" not in json.dumps(body)


async def test_additional_directories_are_workspace_folders(
    karyi_acp: Start, fake_llm: FakeModelServer, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.md").write_text("the other folder\n")
    fake_llm.script(
        Reply(text=f'<tools><read><file src="{other}/notes.md"/></read></tools>'),
        Reply(text="Read it."),
    )
    agent = await karyi_acp()
    with pytest.raises(RequestError) as missing:
        await agent.conn.new_session(
            cwd=str(agent.root), mcp_servers=[], additional_directories=[str(tmp_path / "nope")]
        )
    assert missing.value.data["field"] == "additionalDirectories"
    created = await agent.conn.new_session(
        cwd=str(agent.root), mcp_servers=[], additional_directories=[str(other)]
    )
    await agent.say(created.session_id, "read the notes")
    (done,) = [u for u in agent.client.of("tool_call_update") if u.status == "completed"]
    assert "the other folder" in done.content[-1].content.text


async def test_list_pages(karyi_acp: Start, fake_llm: FakeModelServer) -> None:
    fake_llm.script(*[Reply(text=f"answer {n}") for n in range(3)])
    agent = await karyi_acp()
    made = []
    for n in range(3):
        made.append(await agent.new_session())
        await agent.say(made[-1], f"question {n}")
    # The store `karyi acp` wrote, paged two at a time (50 in the protocol).
    first = listing.list_sessions([agent.root], None, page_size=2)
    second = listing.list_sessions([agent.root], first.next_cursor, page_size=2)
    assert [s.title for s in first.sessions] == ["question 2", "question 1"]
    assert [s.title for s in second.sessions] == ["question 0"] and second.next_cursor is None


async def test_sign_in_without_a_key(karyi_acp: Start) -> None:
    agent = await karyi_acp(env_changes=NO_KEY)
    sid = await agent.new_session()  # a session opens without a key
    with pytest.raises(RequestError) as auth:
        await agent.conn.authenticate(method_id="api-key")
    assert auth.value.code == -32000 and "karyi login" in auth.value.data["message"]
    with pytest.raises(RequestError) as prompt:
        await agent.say(sid, "hello")
    assert prompt.value.code == -32000 and "OPENAI_API_KEY" in prompt.value.data["message"]
    with pytest.raises(RequestError) as unknown:
        await agent.conn.authenticate(method_id="nosuch")
    assert unknown.value.code == -32602


async def test_logout_removes_the_stored_key(karyi_acp: Start, _isolated_config: Path) -> None:
    store = SecretStore.default({"KARYI_CONFIG_DIR": str(_isolated_config)})
    store.set("OPENAI_API_KEY", "sk-kept", note="karyi login")
    agent = await karyi_acp(env_changes=NO_KEY, initialize=False)
    init = await agent.initialize()
    assert init.agent_capabilities is not None and init.agent_capabilities.auth is not None
    assert init.agent_capabilities.auth.logout is not None  # advertised: it works
    await agent.conn.authenticate(method_id="api-key")  # the keyring's key: signed in
    sid = await agent.new_session()
    await agent.conn._conn.send_request("logout", {})
    assert store.get("OPENAI_API_KEY") is None
    with pytest.raises(RequestError) as auth:
        await agent.conn.authenticate(method_id="api-key")
    assert auth.value.code == -32000
    with pytest.raises(RequestError) as prompt:  # the open session lost its key too
        await agent.say(sid, "hello")
    assert prompt.value.code == -32000 and "OPENAI_API_KEY" in prompt.value.data["message"]


async def test_fork_has_the_turns_so_far_and_leaves_the_session_alone(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="Hello."), Reply(text="On the fork."), Reply(text="On the first."))
    first = await karyi_acp()
    init = await first.initialize()
    caps = init.agent_capabilities.session_capabilities if init.agent_capabilities else None
    assert caps is not None and caps.fork is not None
    sid = await first.new_session()
    await first.say(sid, "Say hello")

    second = await karyi_acp()  # a new process: the session is only stored there
    forked = await second.conn.fork_session(cwd=str(second.root), session_id=sid)
    assert forked.session_id != sid and forked.modes is not None and forked.config_options
    await second.say(forked.session_id, "and on the fork?")
    assert [m["content"] for m in fake_llm.requests[1].body["messages"][-3:]] == [
        "Say hello",
        "Hello.",
        "and on the fork?",
    ]
    await first.say(sid, "and here?")  # the first session never saw the fork's turn
    sent = json.dumps(fake_llm.requests[2].body["messages"])
    assert "and here?" in sent and "on the fork" not in sent
    titles = {s.session_id: s.title for s in (await second.conn.list_sessions()).sessions}
    assert titles[forked.session_id] == "Say hello (fork)"

    with pytest.raises(RequestError) as unknown:
        await second.conn.fork_session(cwd=str(second.root), session_id="nope")
    assert unknown.value.code == -32602 and unknown.value.data["field"] == "sessionId"
