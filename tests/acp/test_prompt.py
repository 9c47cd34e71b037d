"""A prompt turn over ACP: updates for everything the agent does, permissions asked
with ACP's options, rejections told to the model, cancellation, model failures."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import RequestError
from acp.schema import FileEditToolCallContent, ToolCallLocation

from tests.acp.conftest import READ, Start, edit
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Fault, Reply

OPTIONS = ["allow_once", "allow_always", "reject_once", "reject_always"]


async def test_a_read_streams_message_and_tool_updates(
    karyi_acp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    fake_llm.script(Reply(text=READ, thinking="hmm"), Reply(text="The README says hello."))
    agent = await karyi_acp()
    sid = await agent.new_session()
    answer = await agent.say(sid, "What does the README say?")
    client = agent.client
    assert answer.stop_reason == "end_turn"
    # The stable schema has no `usage` in the answer: it is under `_meta`.
    assert answer.usage is None and answer.field_meta is not None
    assert answer.field_meta["usage"]["inputTokens"] == 22
    assert client.message_text().startswith("Let me look.")
    assert client.message_text().endswith("The README says hello.")
    assert "hmm" in "".join(u.content.text for u in client.of("agent_thought_chunk"))
    (start,) = client.of("tool_call")
    assert (start.kind, start.status) == ("read", "pending")
    assert start.locations == [ToolCallLocation(path=str(ws_root / "README.md"))]
    statuses = [u.status for u in client.of("tool_call_update")]
    assert statuses[0] == "in_progress" and statuses[-1] == "completed"
    assert "Hello." in client.of("tool_call_update")[-1].content[0].content.text
    assert client.of("usage_update")
    assert client.permissions == []  # reading asks nothing
    assert all(s == sid for s, _ in client.updates)


async def test_an_edit_allowed_once_shows_its_diff_and_is_written(
    karyi_acp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    fake_llm.script(Reply(text=edit("README.md", "Hello.", "Hi there.")), Reply(text="Done."))
    agent = await karyi_acp()
    sid = await agent.new_session()
    answer = await agent.say(sid, "Greet differently")
    assert answer.stop_reason == "end_turn"
    assert (ws_root / "README.md").read_text() == "# Demo\n\nHi there.\n"
    (asked, options) = agent.client.permissions[0]
    assert [o.option_id for o in options] == OPTIONS
    assert [o.kind for o in options] == OPTIONS
    diff = FileEditToolCallContent(
        type="diff",
        path=str(ws_root / "README.md"),
        old_text="# Demo\n\nHello.\n",
        new_text="# Demo\n\nHi there.\n",
    )
    assert asked.kind == "edit" and asked.content == [diff]
    (start,) = agent.client.of("tool_call")
    assert start.kind == "edit" and start.status == "pending"
    done = agent.client.of("tool_call_update")[-1]
    assert done.status == "completed" and done.content[0] == diff


async def test_a_rejected_edit_changes_nothing_and_the_model_is_told(
    karyi_acp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    fake_llm.script(Reply(text=edit("README.md", "Hello.", "Bye.")), Reply(text="Understood."))
    agent = await karyi_acp()
    agent.client.answer = "reject_once"
    sid = await agent.new_session()
    answer = await agent.say(sid, "Change it")
    assert answer.stop_reason == "end_turn"
    assert (ws_root / "README.md").read_text() == "# Demo\n\nHello.\n"
    told = fake_llm.requests[1].body["messages"][-1]["content"]
    assert "the user rejected this edit call" in told
    assert agent.client.of("tool_call_update")[-1].status == "failed"


async def test_always_allow_is_remembered_for_the_session(
    karyi_acp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    fake_llm.script(
        Reply(text=edit("README.md", "Hello.", "One.")),
        Reply(text=edit("README.md", "One.", "Two.")),
        Reply(text="Done."),
    )
    agent = await karyi_acp()
    agent.client.answer = "allow_always"
    sid = await agent.new_session()
    await agent.say(sid, "Edit twice")
    assert (ws_root / "README.md").read_text() == "# Demo\n\nTwo.\n"
    assert len(agent.client.permissions) == 1


async def test_cancel_while_the_reply_streams(karyi_acp: Start, fake_llm: FakeModelServer) -> None:
    fake_llm.script(Reply(text="Thinking very hard " * 10))
    fake_llm.fail_next(Fault(stall=True, after=3))
    agent = await karyi_acp()
    sid = await agent.new_session()
    turn = asyncio.ensure_future(agent.say(sid, "talk"))
    await agent.client.wait_for(lambda: agent.client.of("agent_message_chunk"))
    await agent.conn.cancel(session_id=sid)
    assert (await turn).stop_reason == "cancelled"


async def test_cancel_withdraws_a_pending_permission(
    karyi_acp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    fake_llm.script(Reply(text=edit("README.md", "Hello.", "Never.")), Reply(text="next"))
    agent = await karyi_acp()
    agent.client.answer = None  # the user does not answer before cancelling
    sid = await agent.new_session()
    turn = asyncio.ensure_future(agent.say(sid, "Change it"))
    await agent.client.wait_for(lambda: agent.client.permissions)
    await agent.conn.cancel(session_id=sid)
    assert (await turn).stop_reason == "cancelled"
    assert (ws_root / "README.md").read_text() == "# Demo\n\nHello.\n"
    assert agent.client.of("tool_call_update")[-1].status == "failed"


async def test_a_model_failure_ends_the_turn_with_a_message_and_the_session_goes_on(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.fail_next(Fault(status=400, message="bad model"))
    fake_llm.script(Reply(text="Back again."))
    agent = await karyi_acp()
    sid = await agent.new_session()
    answer = await agent.say(sid, "hello")
    assert answer.stop_reason == "end_turn"
    assert "Karyi stopped (bad_request)" in agent.client.message_text()
    again = await agent.say(sid, "hello again")
    assert again.stop_reason == "end_turn"
    assert agent.client.message_text().endswith("Back again.")


async def test_reply_cut_by_the_token_limit_is_max_tokens(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="A long answer that", finish="length"))
    agent = await karyi_acp()
    sid = await agent.new_session()
    assert (await agent.say(sid, "write a lot")).stop_reason == "max_tokens"


async def test_the_step_limit_is_max_turn_requests(
    karyi_acp: Start, fake_llm: FakeModelServer, _isolated_config: Path
) -> None:
    (_isolated_config / "settings.json").write_text('{"maxSteps": 1}')
    fake_llm.script(Reply(text=READ))
    agent = await karyi_acp()
    sid = await agent.new_session()
    assert (await agent.say(sid, "read")).stop_reason == "max_turn_requests"


async def test_a_second_prompt_while_one_runs_is_refused(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="slow " * 20))
    fake_llm.fail_next(Fault(stall=True, after=2))
    agent = await karyi_acp()
    sid = await agent.new_session()
    turn = asyncio.ensure_future(agent.say(sid, "talk"))
    await agent.client.wait_for(lambda: agent.client.of("agent_message_chunk"))
    with pytest.raises(RequestError) as refused:
        await agent.say(sid, "again")
    assert refused.value.code == -32600
    assert "already running a turn" in refused.value.data["message"]
    await agent.conn.cancel(session_id=sid)
    assert (await turn).stop_reason == "cancelled"
