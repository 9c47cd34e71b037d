"""A chat turn over LSP: updates stream, permissions are answered, sessions persist."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import Start, wait_for_event
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

READ = 'Let me look.\n<tools><read><file src="README.md"/></read></tools>'


def updates(client: Any) -> list[dict[str, Any]]:
    return list(client.updates)


def events(client: Any) -> list[dict[str, Any]]:
    return [u["event"] for u in updates(client)]


async def request(client: Any, method: str, params: Any) -> Any:
    return await client.protocol.send_request_async(method, params)


async def test_a_chat_turn_streams_updates(
    lsp: Start, fake_llm: FakeModelServer, editor: str
) -> None:
    fake_llm.script(Reply(text=READ), Reply(text="The README says hello."))
    client = await lsp(editor)
    result = await request(client, "karyi/chat", {"message": "What does the README say?"})
    assert result.stopReason == "end_turn" and result.finalAnswer == "The README says hello."
    kinds = [e["type"] for e in events(client)]
    assert kinds[0] == "turnStarted" and kinds[-1] == "turnFinished"
    assert {"text", "toolPending", "toolQueued", "toolRunning", "toolDone", "usage"} <= set(kinds)
    done = next(e for e in events(client) if e["type"] == "toolDone")
    assert done["result"]["success"] and "Hello." in done["result"]["llm_content"]
    assert all(u["sessionId"] == result.sessionId for u in updates(client))
    assert {u["turnId"] for u in updates(client)} == {result.turnId}
    second = fake_llm.requests[1].body["messages"]
    assert "Hello." in second[-1]["content"]


async def test_permission_answered_with_confirm_tool(
    lsp: Start, fake_llm: FakeModelServer, _isolated_config: Path
) -> None:
    (_isolated_config / "settings.json").write_text(
        '{"permissions": {"tools": {"read": "confirm"}}}'
    )
    fake_llm.script(Reply(text=READ), Reply(text="Done."))
    client = await lsp()
    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "read"}))
    awaiting = await wait_for_event(client, "toolAwaitingPermission")
    sid = updates(client)[0]["sessionId"]
    with pytest.raises(JsonRpcException, match="is not waiting for permission"):
        await request(
            client,
            "karyi/confirmTool",
            {"sessionId": sid, "toolCallId": "nope", "outcome": "allowOnce"},
        )
    await request(
        client,
        "karyi/confirmTool",
        {
            "sessionId": sid,
            "toolCallId": awaiting["call"]["id"],
            "outcome": "reject",
            "feedback": "read docs/ instead",
        },
    )
    result = await chat
    assert result.finalAnswer == "Done."
    assert "saying: read docs/ instead" in fake_llm.requests[1].body["messages"][-1]["content"]


async def test_plain_client_gets_show_message_request(
    lsp: Start, fake_llm: FakeModelServer, _isolated_config: Path
) -> None:
    (_isolated_config / "settings.json").write_text(
        '{"permissions": {"tools": {"read": "confirm"}}}'
    )
    fake_llm.script(Reply(text=READ), Reply(text="Done."))
    client = await lsp("neovim", ui=False)
    asked: list[str] = []

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def answer(params: types.ShowMessageRequestParams) -> types.MessageActionItem:
        asked.append(params.message)
        return types.MessageActionItem(title="Allow")

    result = await request(client, "karyi/chat", {"message": "read"})
    assert result.finalAnswer == "Done."
    assert asked == ["Karyi wants to: Read README.md"]
    assert "Hello." in fake_llm.requests[1].body["messages"][-1]["content"]


async def test_cancel_mid_turn(lsp: Start, fake_llm: FakeModelServer) -> None:
    from tests.support.replies import Fault

    fake_llm.script(Reply(text="Thinking very hard " * 10))
    fake_llm.fail_next(Fault(stall=True))
    client = await lsp()
    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "talk"}))
    started = await wait_for_event(client, "step")
    sid = updates(client)[0]["sessionId"]
    assert (await request(client, "karyi/cancel", {"sessionId": sid})).cancelled is True
    result = await chat
    assert result.stopReason == "cancelled"
    assert started["step"] == 1


async def test_sessions_survive_a_server_restart(lsp: Start, fake_llm: FakeModelServer) -> None:
    fake_llm.script(Reply(text="First."), Reply(text="Second."))
    first = await lsp()
    result = await request(first, "karyi/chat", {"message": "remember me"})
    await first.shutdown_session()
    second = await lsp()
    listed = await request(second, "karyi/sessions", {})
    assert [s.id for s in listed.sessions] == [result.sessionId]
    assert listed.sessions[0].title == "remember me"
    loaded = await request(second, "karyi/loadSession", {"sessionId": result.sessionId})
    assert [m.role for m in loaded.messages] == ["user", "assistant"]
    again = await request(second, "karyi/chat", {"sessionId": result.sessionId, "message": "again"})
    assert again.finalAnswer == "Second."
    sent = [m["content"] for m in fake_llm.requests[-1].body["messages"][1:]]
    assert sent == ["remember me", "First.", "again"]
    await request(second, "karyi/deleteSession", {"sessionId": result.sessionId})
    assert (await request(second, "karyi/sessions", {})).sessions == []


@pytest.mark.parametrize(
    ("method", "params", "message"),
    [
        ("karyi/chat", {}, "karyi/chat: missing required field 'message'"),
        ("karyi/chat", {"message": 3}, "karyi/chat: message: expected string"),
        ("karyi/cancel", {"sessionId": "x", "extra": 1}, "unknown field 'extra'"),
        ("karyi/loadSession", {"sessionId": "nope"}, "no session 'nope'"),
        (
            "karyi/confirmTool",
            {"sessionId": "s", "toolCallId": "t", "outcome": "maybe"},
            "outcome: expected one of 'allowOnce', 'allowAlways', 'reject', 'rejectAlways'",
        ),
        ("karyi/restoreCheckpoint", {"checkpointId": "abc"}, "no checkpoint 'abc'"),
    ],
)
async def test_malformed_params_get_precise_errors(
    lsp: Start, method: str, params: Any, message: str
) -> None:
    client = await lsp()
    with pytest.raises(JsonRpcException, match=message.replace("(", r"\(").replace(")", r"\)")):
        await request(client, method, params)


async def test_a_second_chat_on_a_busy_session_is_refused(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    from tests.support.replies import Fault

    fake_llm.script(Reply(text="slow " * 20))
    fake_llm.fail_next(Fault(stall=True))
    client = await lsp()
    first = asyncio.ensure_future(request(client, "karyi/chat", {"message": "one"}))
    await wait_for_event(client, "step")
    sid = updates(client)[0]["sessionId"]
    with pytest.raises(JsonRpcException, match="is already running a turn"):
        await request(client, "karyi/chat", {"sessionId": sid, "message": "two"})
    await request(client, "karyi/cancel", {"sessionId": sid})
    assert (await first).stopReason == "cancelled"
