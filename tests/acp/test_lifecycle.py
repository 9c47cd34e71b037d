"""`karyi acp` starts, negotiates the protocol, opens sessions, and answers bad requests
with the JSON-RPC errors ACP specifies."""

from __future__ import annotations

import pytest
from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.schema import (
    AgentAuthCapabilities,
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LogoutCapabilities,
    McpCapabilities,
    PromptCapabilities,
    SessionAdditionalDirectoriesCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionDeleteCapabilities,
    SessionForkCapabilities,
    SessionListCapabilities,
    SessionResumeCapabilities,
)

from karyi import __version__
from karyi.acp.capabilities import auth_methods
from tests.acp.conftest import Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_initialize_negotiates_and_declares_capabilities(karyi_acp: Start) -> None:
    agent = await karyi_acp(initialize=False)
    answer = await agent.conn.initialize(protocol_version=PROTOCOL_VERSION + 7)
    assert answer == InitializeResponse(
        protocol_version=PROTOCOL_VERSION,
        agent_capabilities=AgentCapabilities(
            load_session=True,
            prompt_capabilities=PromptCapabilities(image=True, audio=False, embedded_context=True),
            mcp_capabilities=McpCapabilities(http=True, sse=True),
            session_capabilities=SessionCapabilities(
                list=SessionListCapabilities(),
                resume=SessionResumeCapabilities(),
                close=SessionCloseCapabilities(),
                delete=SessionDeleteCapabilities(),
                fork=SessionForkCapabilities(),
                additional_directories=SessionAdditionalDirectoriesCapabilities(),
            ),
            auth=AgentAuthCapabilities(logout=LogoutCapabilities()),
        ),
        agent_info=Implementation(name="karyi", title="Karyi", version=__version__),
        auth_methods=auth_methods(ClientCapabilities()),
    )
    assert [m.id for m in answer.auth_methods or []] == ["api-key"]  # no terminal auth offered


async def test_new_session_uses_cwd_as_the_workspace(karyi_acp: Start) -> None:
    agent = await karyi_acp()
    first, second = await agent.new_session(), await agent.new_session()
    assert first and second and first != second
    await agent.opened(first)
    await agent.opened(second)
    assert (agent.root / ".karyi").is_dir()  # the session store lives in the cwd's workspace


async def test_missing_field_is_invalid_params_naming_it(karyi_acp: Start) -> None:
    agent = await karyi_acp()
    with pytest.raises(RequestError) as raised:
        await agent.conn._conn.send_request("session/new", {"mcpServers": []})
    assert raised.value.code == -32602
    assert [e["loc"] for e in raised.value.data["errors"]] == [["cwd"]]


async def test_relative_cwd_is_invalid_params(karyi_acp: Start) -> None:
    agent = await karyi_acp()
    with pytest.raises(RequestError) as raised:
        await agent.conn.new_session(cwd="project", mcp_servers=[])
    assert raised.value.code == -32602
    assert raised.value.data == {"field": "cwd", "message": "'project' is not an absolute path"}


async def test_unknown_session_is_an_error_and_the_agent_goes_on(karyi_acp: Start) -> None:
    agent = await karyi_acp()
    with pytest.raises(RequestError) as raised:
        await agent.conn.prompt(session_id="nope", prompt=[text_block("hi")])
    assert raised.value.code == -32602 and raised.value.data["field"] == "sessionId"
    await agent.conn.cancel(session_id="nope")  # a notification: logged, no crash
    assert await agent.new_session()


async def test_a_session_that_cannot_open_says_why_on_each_request(karyi_acp: Start) -> None:
    """`session/new` answers before the session's runtime opens (docs/acp.md#start-up): a
    runtime that cannot open is an error naming the cause on every request for the session,
    and the agent goes on."""
    agent = await karyi_acp(env_changes={"KARYI_PROFILE": "nope"})
    sid = await agent.new_session()
    for request in (
        agent.say(sid, "hi"),
        agent.conn.set_session_mode(session_id=sid, mode_id="plan"),
        agent.conn.set_config_option(config_id="mode", session_id=sid, value="plan"),
    ):
        with pytest.raises(RequestError) as raised:
            await request
        assert raised.value.code == -32603
        assert "unknown profile 'nope'" in raised.value.data["message"]
    await agent.conn.cancel(session_id=sid)  # a notification: logged, no crash
    await agent.conn.close_session(session_id=sid)
    with pytest.raises(RequestError) as closed:
        await agent.say(sid, "hi")
    assert closed.value.code == -32602
    assert await agent.new_session()


async def test_a_prompt_sent_at_once_waits_for_the_session_to_open(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    """Requests for a session wait until it is open; its options come first."""
    fake_llm.script(Reply(text="Hello."))
    agent = await karyi_acp()
    sid = await agent.new_session()
    answer = await agent.say(sid, "hi")  # sent right after the answer, not after the update
    assert answer.stop_reason == "end_turn"
    kinds = [u.session_update for s, u in agent.client.updates if s == sid]
    assert kinds[0] == "config_option_update"
    assert agent.client.message_text() == "Hello."
