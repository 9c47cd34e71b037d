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
    SessionListCapabilities,
    SessionResumeCapabilities,
)

from karyi import __version__
from karyi.acp.capabilities import auth_methods
from tests.acp.conftest import Start


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
