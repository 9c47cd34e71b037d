"""The turn loop end to end with an instant scripted model and real tools on real files."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from karyi.agent.events import ToolDone
from karyi.agent.review.approval import ApprovalRequest, Decision, approve_all
from karyi.agent.session.checkpoints import Checkpoints
from karyi.agent.session.conversation import Conversation
from karyi.agent.session.store import SCHEMA, SessionStore
from karyi.llm.base import Message, ProviderError
from karyi.tools.context import ToolContext
from tests.support.harness import Harness, window_with_room
from tests.support.scripted import NativeReply, ScriptedProvider


async def test_a_multi_step_toolsxml_turn(ctx: ToolContext) -> None:
    h = Harness(
        ctx,
        [
            'Let me read it.\n<tools><read><file src="README.md"/></read></tools>',
            "The README says hello.",
        ],
    )
    result = await h.agent.run("What does the README say?")
    assert (result.stop_reason, result.final_answer, result.steps) == (
        "end_turn",
        "The README says hello.",
        2,
    )
    second = h.provider.requests[1]
    assert (
        second.messages[0].role == "system"
        and "You are a test agent." in second.messages[0].content
    )
    assert [m.role for m in second.messages[1:]] == ["user", "assistant", "user"]
    assert '<result index="0" tool="read" status="ok">' in second.messages[-1].content
    assert "Hello." in second.messages[-1].content
    kinds = h.kinds()
    assert kinds[0] == "turnStarted" and kinds[-1] == "turnFinished"
    assert kinds.index("toolPending") < kinds.index("toolQueued") < kinds.index("toolRunning")
    assert kinds.index("toolRunning") < kinds.index("toolDone")
    stored = h.store.calls(h.conv.id)
    assert [(c.name, c.success, c.decision) for c in stored] == [("read", True, "auto")]
    assert len(h.store.messages(h.conv.id)) == 4
    [turn] = h.store.turns(h.conv.id)
    assert (turn["stop_reason"], turn["input_tokens"], turn["output_tokens"]) == (
        "end_turn",
        20,
        10,
    )


async def test_calls_start_while_the_model_is_still_streaming(ctx: ToolContext) -> None:
    reply = '<tools><read><file src="README.md"/></read>' + " " * 200 + "</tools>"
    h = Harness(ctx, [reply, "done"])
    h.provider.chunk = 10
    seen_done_before_end: list[int] = []
    h.agent.events.subscribe(
        lambda e: (
            seen_done_before_end.append(len(h.provider.requests))
            if isinstance(e, ToolDone)
            else None
        )
    )
    gate = asyncio.Event()
    original = h.provider.stream

    async def slow_stream(request: Any) -> Any:
        async for ev in original(request):
            yield ev
            if len(h.provider.requests) == 1 and getattr(ev, "text", "").endswith(" "):
                await asyncio.wait_for(gate.wait(), 30)  # released by the tool finishing

    h.provider.stream = slow_stream  # type: ignore[method-assign]
    h.agent.events.subscribe(lambda e: gate.set() if isinstance(e, ToolDone) else None)
    result = await h.agent.run("read")
    assert result.stop_reason == "end_turn"
    assert seen_done_before_end == [1]  # the read finished during the first reply


async def test_agentxml_final_answer_and_ids_unique_across_turns(ctx: ToolContext) -> None:
    call = (
        '<tools>[{"id": "1", "name": "read_file", "parameters": {"filePath": "README.md"}}]</tools>'
    )
    h = Harness(
        ctx,
        [
            call,
            "<final_answer>It says hello.</final_answer>",
            call,
            "<final_answer>ok</final_answer>",
        ],
        dialect="agentxml",
        profile="agentxml",
    )
    first = await h.agent.run("read it")
    assert (first.stop_reason, first.final_answer) == ("final_answer", "It says hello.")
    await h.agent.run("again")
    results = h.last_user(3)
    assert "duplicate_id" in results and "was already used in this session" in results


async def test_native_dialect_round_trip(ctx: ToolContext) -> None:
    h = Harness(
        ctx,
        [
            NativeReply(
                [("c1", "read_file", json.dumps({"absolute_path": "README.md"}))], "Reading."
            ),
            "It says hello.",
        ],
        dialect="native",
        profile="vecli",
    )
    result = await h.agent.run("read")
    assert result.final_answer == "It says hello."
    first, second = h.provider.requests
    names = [d["name"] for d in first.tools]
    assert {"ls", "read_file", "write_note", "hang"} <= set(names)
    assistant, tool = second.messages[-2:]
    assert assistant.tool_calls[0].id == "c1" and assistant.content == "Reading."
    assert (tool.role, tool.tool_call_id, tool.is_error) == ("tool", "c1", False)
    assert "Hello." in tool.content


async def test_rejection_with_feedback_reaches_the_model(ctx: ToolContext) -> None:
    async def reject(req: ApprovalRequest) -> Decision:
        return Decision(False, "put it in NOTES.md instead")

    h = Harness(ctx, ['<tools><write_note text="x"/></tools>', "ok"], approver=reject)
    await h.agent.run("write")
    assert 'code="rejected"' in h.last_user(1)
    assert "saying: put it in NOTES.md instead" in h.last_user(1)
    assert not (ctx.workspace.root / "notes.txt").exists()
    assert h.store.calls(h.conv.id)[0].decision == "rejected"


async def test_a_checkpoint_is_taken_before_the_first_change(ctx: ToolContext) -> None:
    h = Harness(ctx, ['<tools><write_note text="one"/><write_note text="two"/></tools>', "done"])
    await h.agent.run("write notes")
    [turn] = h.store.turns(h.conv.id)
    assert turn["checkpoint"] and (ctx.workspace.root / "notes.txt").read_text() == "two"
    cps = Checkpoints(ctx.workspace.root)
    assert len(cps.list()) == 1
    cps.restore(turn["checkpoint"])
    assert not (ctx.workspace.root / "notes.txt").exists()


async def test_max_steps(ctx: ToolContext) -> None:
    call = '<tools><read><file src="README.md"/></read></tools>'
    h = Harness(ctx, [call] * 5, max_steps=3)
    result = await h.agent.run("loop")
    assert (result.stop_reason, result.steps) == ("max_steps", 3)
    assert any(e.kind == "error" and "maxSteps" in e.to_dict()["message"] for e in h.events)


async def test_mistake_limit_on_the_same_failing_call(ctx: ToolContext) -> None:
    call = '<tools><read><file src="missing.txt"/></read></tools>'
    h = Harness(ctx, [call] * 5, mistake_limit=3)
    result = await h.agent.run("read missing")
    assert (result.stop_reason, result.steps) == ("mistake_limit", 3)


async def test_cancel_mid_stream_keeps_the_session_consistent(ctx: ToolContext) -> None:
    h = Harness(ctx, ["A long reply that never finishes"])
    h.provider.gate = asyncio.Event()
    started = asyncio.Event()
    h.agent.events.subscribe(lambda e: started.set() if e.kind == "text" else None)
    task = asyncio.ensure_future(h.agent.run("talk"))
    await started.wait()
    assert h.agent.cancel()
    result = await task
    assert result.stop_reason == "cancelled"
    roles = [m.role for m in h.store.messages(h.conv.id)]
    assert roles == ["user", "assistant"]
    assert "[this reply was cancelled by the user]" in h.store.messages(h.conv.id)[1].content
    assert h.store.turns(h.conv.id)[0]["stop_reason"] == "cancelled"


async def test_cancel_mid_tool(ctx: ToolContext) -> None:
    h = Harness(ctx, ["<tools><hang/></tools>"])
    running = asyncio.Event()
    h.agent.events.subscribe(lambda e: running.set() if e.kind == "toolRunning" else None)
    task = asyncio.ensure_future(h.agent.run("hang"))
    await running.wait()
    h.agent.cancel()
    assert (await task).stop_reason == "cancelled"
    [record] = h.store.calls(h.conv.id)
    assert (record.name, record.error_code) == ("hang", "cancelled")
    assert "cancelled" in h.store.messages(h.conv.id)[-1].content


async def test_provider_failure_before_output_ends_the_turn_cleanly(ctx: ToolContext) -> None:
    h = Harness(ctx, [ProviderError("auth", "401: bad key")])
    result = await h.agent.run("hi")
    assert result.stop_reason == "error"
    error = next(e.to_dict() for e in h.events if e.kind == "error")
    assert (error["errorKind"], error["message"]) == ("auth", "401: bad key")
    assert [m.role for m in h.store.messages(h.conv.id)] == ["user"]


async def test_partial_reply_then_retryable_failure_continues(ctx: ToolContext) -> None:
    class Partial(ScriptedProvider):
        async def stream(self, request: Any) -> Any:  # first call: a call, then a reset
            if not self.requests:
                self.requests.append(request)
                from karyi.llm.base import TextChunk

                yield TextChunk('<tools><read><file src="README.md"/></read>')
                raise ProviderError("connection", "reset", retryable=True, partial=True)
            async for ev in super().stream(request):
                yield ev

    h = Harness(ctx, [])
    h.agent.provider = Partial(["Recovered."])
    result = await h.agent.run("read")
    assert (result.stop_reason, result.final_answer) == ("end_turn", "Recovered.")
    assistant = h.store.messages(h.conv.id)[1].content
    assert "[this reply was cut off by a provider error (connection: reset)]" in assistant


async def test_compaction_elides_old_tool_output(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "big.txt").write_text("x" * 3000 + "\n")
    read = '<tools><read><file src="big.txt"/></read></tools>'
    window = await window_with_room(ctx, 3000)  # four reads of big.txt, not six
    h = Harness(ctx, [read] * 6 + ["done"])
    h.provider.context_window = window
    await h.agent.run("read a lot")
    assert any(e.kind == "notice" and e.to_dict()["topic"] == "compaction" for e in h.events)
    last = h.provider.requests[-1].messages
    assert any(m.content.startswith("[elided earlier tool output") for m in last)
    assert "to fit the context window" in " ".join(m.content for m in last)


async def test_session_survives_a_restart(ctx: ToolContext) -> None:
    h = Harness(ctx, ["First answer."])
    await h.agent.run("first question")
    h.store.close()
    store = SessionStore.for_workspace(ctx.workspace.root)
    conv = Conversation.resume(store, h.conv.id)
    assert conv.title == "first question"
    h.provider.replies.append("Second answer.")
    agent = h.make(ctx, conv, "toolsxml", "karyi", approve_all)
    await agent.run("second question")
    sent = [m.content for m in h.provider.requests[-1].messages[1:]]
    assert sent == ["first question", "First answer.", "second question"]
    assert [s.id for s in store.all()] == [h.conv.id]


def test_a_store_from_an_older_version_gains_the_reasoning_column(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    old = sqlite3.connect(path)
    old.executescript(SCHEMA.replace("    reasoning TEXT NOT NULL DEFAULT '[]',\n", ""))
    old.execute("INSERT INTO sessions (id, created, updated) VALUES ('s1', 0, 0)")
    old.execute(
        "INSERT INTO messages (session_id, seq, turn_id, role, content, created)"
        " VALUES ('s1', 0, 't1', 'user', 'hello', 0)"
    )
    old.commit()
    old.close()
    store = SessionStore(path)
    assert store.messages("s1") == [Message("user", "hello")]
    thought = {"type": "thinking", "thinking": "Hm.", "signature": "c2ln"}
    store.append("s1", "t1", Message("assistant", "hi", reasoning=(thought,)))
    assert store.messages("s1")[1].reasoning == (thought,)
    store.close()


def test_reasoning_that_would_need_redacting_is_not_stored(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db", redact=lambda text: text.replace("hunter2", "***"))
    sid = store.create()
    leaked = {"type": "thinking", "thinking": "the password is hunter2", "signature": "c2ln"}
    store.append(sid, "t1", Message("assistant", "done", reasoning=(leaked,)))
    [message] = store.messages(sid)
    assert message.reasoning == () and "hunter2" not in path_text(store.path)
    store.close()


def path_text(path: Path) -> str:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*")).decode("latin-1")


async def test_changed_files_are_announced(ctx: ToolContext) -> None:
    h = Harness(ctx, ["ok"])
    h.agent.changes = lambda sid: ["src/main.py (modified on disk)"]
    await h.agent.run("hi")
    assert h.last_user(0).endswith(
        "Note: these files changed since you last read them: src/main.py (modified on disk)"
    )


async def test_a_busy_session_refuses_a_second_turn(ctx: ToolContext) -> None:
    h = Harness(ctx, ["slow"])
    h.provider.gate = asyncio.Event()
    started = asyncio.Event()
    h.agent.events.subscribe(lambda e: started.set() if e.kind == "step" else None)
    task = asyncio.ensure_future(h.agent.run("one"))
    await started.wait()
    with pytest.raises(RuntimeError, match="already running a turn"):
        await h.agent.run("two")
    h.provider.gate.set()
    await task


async def test_invalid_unicode_from_the_model_fails_one_call_and_nothing_crashes(
    ctx: ToolContext,
) -> None:
    bad = (
        "Reading \ud800 it.<tools>["
        '{"id": "1", "name": "read_\\ud800file", "parameters": {"filePath": "README.md"}},'
        '{"id": "2", "name": "read_file", "parameters": {"filePath": "README.md"}}]</tools>'
    )
    h = Harness(
        ctx, [bad, "<final_answer>done</final_answer>"], dialect="agentxml", profile="agentxml"
    )
    result = await h.agent.run("read it \udc00 please")
    assert (result.stop_reason, result.final_answer) == ("final_answer", "done")
    results = h.last_user(1)
    assert "name: invalid Unicode (a lone surrogate U+D800 at character 5)" in results
    assert "Hello" in results  # the valid call after the bad one still ran
    calls = h.store.calls(h.conv.id)
    assert [c.name for c in calls] == ["read_\ufffdfile", "read_file"]


async def test_after_a_failed_turn_the_next_request_still_alternates(ctx: ToolContext) -> None:
    h = Harness(ctx, [ProviderError("server", "502 from the proxy"), "Hello again."])
    assert (await h.agent.run("first try")).stop_reason == "error"
    assert (await h.agent.run("second try")).final_answer == "Hello again."
    roles = [m.role for m in h.provider.requests[1].messages]
    assert roles == ["system", "user"]
    assert h.provider.requests[1].messages[1].content.startswith("first try\n\n")
    assert h.provider.requests[1].messages[1].content.rstrip().endswith("second try")
    assert [m.role for m in h.store.messages(h.conv.id)] == ["user", "user", "assistant"]


async def test_degraded_file_watching_is_told_once(ctx: ToolContext) -> None:
    watcher = ctx.workspace.documents.watcher
    watcher.notice = "File watching is off for the workspace (limit reached)"
    h = Harness(ctx, ["first answer", "second answer"])
    await h.agent.run("one")
    await h.agent.run("two")
    told = [e.to_dict() for e in h.events if e.kind == "notice"]
    assert [(n["topic"], n["message"]) for n in told] == [("watching", watcher.notice)]
