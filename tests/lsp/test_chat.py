"""A chat turn over LSP: updates stream, permissions are answered, turns are cancelled."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from karyi.core.plain_json import plain
from tests.lsp.conftest import READ, Start, request, wait_for_event
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


def updates(client: Any) -> list[dict[str, Any]]:
    return list(client.updates)


def events(client: Any) -> list[dict[str, Any]]:
    return [u["event"] for u in updates(client)]


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


async def test_a_second_chat_on_a_busy_session_waits_its_turn(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="First.", paced=True), Reply(text="Second."))
    client = await lsp()
    first = asyncio.ensure_future(request(client, "karyi/chat", {"message": "one"}))
    await wait_for_event(client, "step")
    sid = updates(client)[0]["sessionId"]
    second = asyncio.ensure_future(
        request(client, "karyi/chat", {"sessionId": sid, "message": "two"})
    )
    await asyncio.to_thread(fake_llm.wait_requests, 1)
    assert not second.done()
    fake_llm.release(100)
    assert (await first).finalAnswer == "First."
    assert (await second).finalAnswer == "Second."
    sent = [m["content"] for m in fake_llm.requests[-1].body["messages"][1:]]
    assert sent == ["one", "First.", "two"]


async def test_a_steered_message_reaches_the_model_at_the_next_tool_boundary(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text=READ, paced=True), Reply(text="Done."))
    client = await lsp(settings={"permissions": {"tools": {"read": "auto"}}})
    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "read it"}))
    await wait_for_event(client, "step")
    sid = updates(client)[0]["sessionId"]

    steered = await request(client, "karyi/steer", {"sessionId": sid, "message": "and be brief"})

    assert plain(steered) == {"ok": True}
    fake_llm.release(100)
    result = await chat
    assert result.finalAnswer == "Done." and result.unsent == []
    last = fake_llm.requests[-1].body["messages"]
    assert "and be brief" in last[-1]["content"] and "README" in last[-1]["content"]
    assert (await wait_for_event(client, "steered"))["text"] == "and be brief"
    loaded = plain(await request(client, "karyi/loadSession", {"sessionId": sid}))
    kinds = [b["kind"] for b in loaded["transcript"]["turns"][0]["blocks"]]
    assert kinds[-3:] == ["call", "steer", "text"]


async def test_what_no_tool_boundary_took_comes_back_unsent(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="Just an answer.", paced=True))
    client = await lsp()
    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "hi"}))
    await wait_for_event(client, "step")
    sid = updates(client)[0]["sessionId"]
    await request(client, "karyi/steer", {"sessionId": sid, "message": "one more thing"})
    fake_llm.release(100)
    assert (await chat).unsent == ["one more thing"]
    with pytest.raises(JsonRpcException, match="no turn is running in session"):
        await request(client, "karyi/steer", {"sessionId": sid, "message": "late"})


async def test_the_documented_chat_example_and_cancel_answers(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    """docs/protocol.md's `karyi/chat` example, verbatim but for the workspace's URI, and
    `karyi/cancel` on an idle session and on one that does not exist."""
    (ws_root / "src").mkdir(exist_ok=True)
    (ws_root / "src" / "convert.py").write_text("def celsius_to_fahrenheit(celsius):\n")
    fake_llm.script(Reply(text="The offset is 23; it should be 32."))
    client = await lsp()
    params = {
        "message": "Why does the boiling test fail?",
        "context": {
            "uri": (ws_root / "src" / "convert.py").as_uri(),
            "selection": {
                "start": {"line": 3, "character": 0},
                "end": {"line": 5, "character": 0},
            },
            "text": "def celsius_to_fahrenheit(celsius: float) -> float:\n    ...\n",
        },
    }
    result = plain(await request(client, "karyi/chat", params))
    keys = {"sessionId", "turnId", "stopReason", "finalAnswer", "mode", "usage", "unsent"}
    assert set(result) == keys
    assert result["mode"] == "act"
    assert set(result["usage"]) == {"inputTokens", "outputTokens", "cachedTokens", "cost"}
    assert (result["stopReason"], result["finalAnswer"]) == (
        "end_turn",
        "The offset is 23; it should be 32.",
    )
    idle = await request(client, "karyi/cancel", {"sessionId": result["sessionId"]})
    assert plain(idle) == {"cancelled": False}
    with pytest.raises(JsonRpcException, match="no session 'nope'") as unknown:
        await request(client, "karyi/cancel", {"sessionId": "nope"})
    assert unknown.value.code == -32602
