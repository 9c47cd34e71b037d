"""`session/load` in a new process: the stored history is replayed as updates before
the answer, and the model continues the conversation."""

from __future__ import annotations

from tests.acp.conftest import READ, Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_load_replays_the_history_then_the_model_continues(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text=READ), Reply(text="It says hello."), Reply(text="Still hello."))
    first = await karyi_acp()
    sid = await first.new_session()
    await first.say(sid, "What does the README say?")

    second = await karyi_acp()
    await second.conn.load_session(cwd=str(second.root), session_id=sid, mcp_servers=[])
    client = second.client
    assert client.kinds()[0] == "user_message_chunk"
    assert client.of("user_message_chunk")[0].content.text == "What does the README say?"
    (call,) = client.of("tool_call")
    assert (call.kind, call.status, call.title) == ("read", "completed", "read")
    assert "Hello." in call.content[0].content.text
    assert client.message_text() == "Let me look.\nIt says hello."
    assert "<tools>" not in client.message_text()
    # Replayed before the answer: every update arrived ahead of the load's response.
    answers = [i for i, m in enumerate(client.raw) if "method" not in m]  # initialize, load
    response = answers[-1]
    updates = [
        i
        for i, m in enumerate(client.raw)
        if m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"] != "available_commands_update"
    ]
    assert updates and max(updates) < response

    answer = await second.say(sid, "And now?")
    assert answer.stop_reason == "end_turn"
    sent = [m["content"] for m in fake_llm.requests[2].body["messages"]]
    assert any("What does the README say?" in c for c in sent)
    assert any("It says hello." in c for c in sent)


async def test_loading_an_unknown_session_is_invalid_params(karyi_acp: Start) -> None:
    import pytest
    from acp import RequestError

    agent = await karyi_acp()
    with pytest.raises(RequestError) as raised:
        await agent.conn.load_session(cwd=str(agent.root), session_id="nope", mcp_servers=[])
    assert raised.value.code == -32602 and raised.value.data["field"] == "sessionId"


def _plans_after_the_last_answer(raw: list[dict[str, object]]) -> list[int]:
    """Indexes of the plan updates that came after the last answer (a prompt's or a
    load's): an update between turns."""
    last = max(i for i, m in enumerate(raw) if "method" not in m)
    return [
        i
        for i, m in enumerate(raw)
        if i > last
        and m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"] == "plan"  # type: ignore[index]
    ]


async def test_the_task_list_goes_with_a_turn_or_the_history_never_between(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    from acp import text_block

    from karyi.protocol import get_dialect

    todos = [
        {"id": "1", "text": "Read", "status": "done"},
        {"id": "2", "text": "Fix", "status": "pending"},
    ]
    write = get_dialect("toolsxml").format_call("todo_write", {"todos": todos})
    fake_llm.script(
        Reply(text=write), Reply(text="Listed."), Reply(text="On."), Reply(text="Back.")
    )
    first = await karyi_acp()
    sid = await first.new_session()
    await first.say(sid, "plan it")
    assert first.client.of("plan") and _plans_after_the_last_answer(first.client.raw) == []

    second = await karyi_acp()
    await second.conn.load_session(cwd=str(second.root), session_id=sid, mcp_servers=[])
    await second.client.wait_for(lambda: second.client.of("available_commands_update"))
    assert [p.entries[1].content for p in second.client.of("plan")] == ["Fix"]
    assert (
        _plans_after_the_last_answer(second.client.raw) == []
    )  # with the history, before the answer
    await second.say(sid, "go on")
    assert len(second.client.of("plan")) == 1  # unchanged: not told again

    third = await karyi_acp()
    await third.conn.resume_session(cwd=str(third.root), session_id=sid, mcp_servers=[])
    await third.client.wait_for(lambda: third.client.of("available_commands_update"))
    assert third.client.of("plan") == []  # nothing between turns
    answer = await third.conn.prompt(session_id=sid, prompt=[text_block("and now?")])
    assert answer.stop_reason == "end_turn"
    assert (
        len(third.client.of("plan")) == 1 and _plans_after_the_last_answer(third.client.raw) == []
    )
