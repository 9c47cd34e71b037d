"""Agent turns over HTTP: the real app, the real provider SDK over HTTP to the fake model
server, real tools on real files. With and without streaming, paused permissions
answered by a second request, one turn per session, sessions per user_id."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from karyi.gateway.owners import Owner, SessionOwners
from tests.gateway.conftest import Make, Rig
from tests.gateway.sse import parse_sse
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Fault, Reply

EDIT = (
    "I will fix it.\n<tools><edit><file src=\"src/main.py\"><find>print('hi')</find>"
    "<replace>print('hello')</replace></file></edit></tools>"
)


def turn(text: str, session: str | None = "s1", user: str | None = "u1", **kw: Any) -> Any:
    """A request body that starts a turn on `text`."""
    body: dict[str, Any] = {
        "input": [{"role": "user", "type": "message", "content": [{"type": "text", "text": text}]}],
        **kw,
    }
    if session is not None:
        body["session_id"] = session
    if user is not None:
        body["user_id"] = user
    return body


def answer(call_id: str, outcome: str, session: str = "s1", user: str = "u1", **kw: Any) -> Any:
    """A request body that answers a paused call."""
    permission = {"tool_call_id": call_id, "outcome": outcome, **kw}
    stream = permission.pop("stream", False)
    return {
        "session_id": session,
        "user_id": user,
        "stream": stream,
        "biz_params": {"permission": permission},
    }


def completed(answer_text: str | None, session: str = "s1", **kw: Any) -> dict[str, Any]:
    """The body of an ended turn (turn_id compared separately)."""
    usage = kw.pop("usage", {"input_tokens": 11, "output_tokens": 7, "cached_tokens": 0})
    output = (
        [
            {
                "role": "assistant",
                "type": "message",
                "content": [{"type": "text", "text": answer_text}],
            }
        ]
        if answer_text
        else []
    )
    return {
        "status": "completed",
        "session_id": session,
        "stop_reason": "end_turn",
        "answer": answer_text,
        "steps": 1,
        "usage": usage,
        "output": output,
        "error": None,
        **kw,
    }


def without_turn_id(body: dict[str, Any]) -> dict[str, Any]:
    assert body.pop("turn_id")
    return body


async def test_a_turn_answers_with_the_model_reply(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    fake_llm.script("Hello from the model.")
    r = await agent_rig.post(turn("say hello"))
    assert r.status_code == 200
    assert without_turn_id(r.json()) == completed("Hello from the model.")
    sent = fake_llm.requests[0].body["messages"]
    assert sent[-1] == {"role": "user", "content": "say hello"}


async def test_all_text_parts_of_the_input_make_the_message(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    fake_llm.script("ok")
    body = {
        "input": [
            {"content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}]},
            {"content": "third", "id": "msg_1", "status": "created"},
        ]
    }
    r = await agent_rig.post(body)
    assert r.status_code == 200
    assert fake_llm.requests[0].body["messages"][-1]["content"] == "first\n\nsecond\n\nthird"


async def test_the_session_keeps_its_history(agent_rig: Rig, fake_llm: FakeModelServer) -> None:
    fake_llm.script("It is 4.", "You asked what 2+2 is.")
    await agent_rig.post(turn("what is 2+2?"))
    r = await agent_rig.post(turn("what did I ask?"))
    assert r.json()["answer"] == "You asked what 2+2 is."
    second = [(m["role"], m["content"]) for m in fake_llm.requests[1].body["messages"][1:]]
    assert second == [
        ("user", "what is 2+2?"),
        ("assistant", "It is 4."),
        ("user", "what did I ask?"),
    ]


async def test_without_a_session_id_a_new_session_is_made(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    fake_llm.script("one", "two")
    first = (await agent_rig.post(turn("hi", session=None))).json()
    sid = first["session_id"]
    assert sid
    second = (await agent_rig.post(turn("again", session=sid))).json()
    assert second["session_id"] == sid
    assert len(fake_llm.requests[1].body["messages"]) == 4


async def test_streaming_sends_every_event_then_the_result(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text=["Hel", "lo."]))
    r = await agent_rig.post(turn("hi", stream=True))
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(r.text)
    kinds = [e.event for e in events]
    assert kinds == ["turnStarted", "step", "usage", "text", "turnFinished", "result"]
    assert [e.id for e in events] == [1, 2, 3, 4, 5, None]
    assert events[0].data == {
        "type": "turnStarted",
        "sessionId": agent_rig.gateway.owners.get("u1", "s1").store_id,  # type: ignore[union-attr]
        "turnId": events[-1].data["turn_id"],
        "message": "hi",
        "mode": "act",
    }
    assert events[3].data == {"type": "text", "text": "Hello.", "channel": "text"}
    assert without_turn_id(events[-1].data) == completed("Hello.")


async def test_a_model_failure_ends_the_turn_with_its_reason(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    fake_llm.fail_next(Fault(status=401, message="bad key"))
    r = await agent_rig.post(turn("hi"))
    body = r.json()
    assert (r.status_code, body["stop_reason"], body["answer"]) == (200, "error", None)
    assert body["error"]["kind"] == "auth"
    assert "bad key" in body["error"]["message"]


async def test_no_usable_model_is_503(make: Make) -> None:
    rig = make()  # openai:gpt-4.1 and no key in the provider's environment
    r = await rig.post(turn("hi"))
    assert r.status_code == 503
    assert r.json()["error"]["code"] == "agent_unavailable"
    assert "no API key" in r.json()["error"]["message"]


# -- permissions ------------------------------------------------------------------------


async def pause_on_edit(rig: Rig, fake: FakeModelServer, **kw: Any) -> dict[str, Any]:
    """Start a turn whose model edits src/main.py: it pauses for permission."""
    fake.script(EDIT)
    r = await rig.post(turn("fix main.py", **kw))
    assert r.status_code == 202, r.text
    body: dict[str, Any] = r.json()
    return body


async def test_a_call_needing_permission_pauses_the_turn(
    agent_rig: Rig, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    paused = await pause_on_edit(agent_rig, fake_llm)
    assert paused["status"] == "pending_permission"
    assert paused["session_id"] == "s1" and paused["turn_id"]
    (call,) = paused["pending"]
    assert (call["tool"], call["params"]) == (
        "edit",
        {
            "files": [
                {
                    "src": "src/main.py",
                    "pairs": [{"find": "print('hi')", "replace": "print('hello')"}],
                }
            ]
        },
    )
    assert call["description"] and call["confirmation"]["kind"] == "edit"
    assert "+print('hello')" in call["confirmation"]["diff"]
    assert (ws_root / "src" / "main.py").read_text() == "print('hi')\n"


async def test_allowing_the_call_resumes_the_turn(
    agent_rig: Rig, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    paused = await pause_on_edit(agent_rig, fake_llm)
    fake_llm.script("Fixed.")
    r = await agent_rig.post(answer(paused["pending"][0]["tool_call_id"], "allow"))
    assert r.status_code == 200
    body = r.json()
    assert (body["turn_id"], body["answer"], body["steps"]) == (paused["turn_id"], "Fixed.", 2)
    assert (ws_root / "src" / "main.py").read_text() == "print('hello')\n"


async def test_rejecting_tells_the_model_why(
    agent_rig: Rig, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    paused = await pause_on_edit(agent_rig, fake_llm)
    fake_llm.script("Understood, leaving it.")
    call_id = paused["pending"][0]["tool_call_id"]
    r = await agent_rig.post(answer(call_id, "reject", feedback="keep the greeting"))
    assert r.json()["answer"] == "Understood, leaving it."
    told = fake_llm.requests[1].body["messages"][-1]["content"]
    assert "the user rejected this edit call, saying: keep the greeting" in told
    assert (ws_root / "src" / "main.py").read_text() == "print('hi')\n"


async def test_allow_always_lasts_for_the_session(
    agent_rig: Rig, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    paused = await pause_on_edit(agent_rig, fake_llm)
    again = EDIT.replace("print('hi')", "print('hello')").replace(
        "<replace>print('hello')", "<replace>print('bye')"
    )
    fake_llm.script(again, "Done twice.")
    r = await agent_rig.post(answer(paused["pending"][0]["tool_call_id"], "allow_always"))
    assert (r.status_code, r.json()["answer"]) == (200, "Done twice.")
    assert (ws_root / "src" / "main.py").read_text() == "print('bye')\n"


async def test_a_streamed_turn_pauses_and_a_streamed_answer_continues_it(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(EDIT)
    first = parse_sse((await agent_rig.post(turn("fix", stream=True))).text)
    assert first[-1].event == "pending_permission"
    call_id = first[-1].data["pending"][0]["tool_call_id"]
    [awaiting] = [e for e in first if e.event == "toolAwaitingPermission"]  # usage may follow
    assert awaiting.data["call"]["id"] == call_id
    fake_llm.script("Fixed.")
    rest = parse_sse((await agent_rig.post(answer(call_id, "allow", stream=True))).text)
    kinds = [e.event for e in rest]
    assert {"toolRunning", "toolDone"} <= set(kinds)
    assert kinds[-2:] == ["turnFinished", "result"]
    ids = [e.id for e in first + rest if e.id is not None]
    assert ids == list(range(1, len(ids) + 1)), "every event once, in order"
    assert rest[-1].data["answer"] == "Fixed."


def follow(stream: bool = False, session: str = "s1", user: str = "u1") -> dict[str, Any]:
    """A request body that follows the session's latest turn again."""
    return {
        "session_id": session,
        "user_id": user,
        "stream": stream,
        "biz_params": {"follow": True},
    }


async def test_a_client_that_lost_the_stream_follows_the_turn_again(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    paused = await pause_on_edit(agent_rig, fake_llm)  # the client saw only the pause
    r = await agent_rig.post(follow(stream=True), headers={"Last-Event-ID": "2"})
    again = parse_sse(r.text)
    assert [e.id for e in again[:-1]] == list(range(3, len(again) + 2))
    assert again[-1].event == "pending_permission"
    assert "toolAwaitingPermission" in [e.event for e in again]  # (usage may come after it)
    assert again[-1].data["pending"] == paused["pending"]
    r = await agent_rig.post(follow())  # no Last-Event-ID: nothing new, the same pause
    assert (r.status_code, r.json()["pending"]) == (202, paused["pending"])

    fake_llm.script("Fixed.")
    await agent_rig.post(answer(paused["pending"][0]["tool_call_id"], "allow"))
    r = await agent_rig.post(follow())  # the turn has ended: its result
    assert (r.status_code, r.json()["answer"]) == (200, "Fixed.")
    replay = parse_sse(
        (await agent_rig.post(follow(stream=True), headers={"Last-Event-ID": "0"})).text
    )
    assert replay[0].event == "turnStarted" and replay[-1].event == "result"
    assert [e.id for e in replay[:-1]] == list(range(1, len(replay)))


async def test_following_needs_a_turn_and_a_valid_event_id(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    r = await agent_rig.post(follow(session="nope"))
    assert (r.status_code, r.json()["error"]["code"]) == (404, "session_not_found")
    fake_llm.script("Hello.")
    await agent_rig.post(turn("hi"))
    r = await agent_rig.post(follow(), headers={"Last-Event-ID": "abc"})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == (
        "Last-Event-ID: expected an event id (a number), got 'abc'"
    )
    r = await agent_rig.post(follow(), headers={"Last-Event-ID": "²".encode()})
    assert r.status_code == 400  # a digit to str.isdigit, not a number
    fake_llm.script("Again.")
    r = await agent_rig.post(turn("again"), headers={"Last-Event-ID": "opaque"})
    assert r.status_code == 200  # without biz_params.follow the header is not ours
    body = follow() | {"input": turn("more")["input"]}
    r = await agent_rig.post(body)
    assert r.json()["error"]["message"] == "input: must be empty with biz_params.follow"


async def test_a_pause_nobody_answers_cancels_the_turn_and_frees_the_session(
    make: Make, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    rig = make(fake=fake_llm, gateway={"permissionTimeoutSeconds": 1.0})
    paused = await pause_on_edit(rig, fake_llm)
    assert paused["status"] == "pending_permission"
    [turn_] = rig.gateway.turns.all()
    assert turn_.task is not None
    # the client went away: the watcher cancels the turn once the call waited 1 s
    _, result = await asyncio.wait_for(turn_.task, 30)
    assert result.stop_reason == "cancelled"
    assert any(
        e.kind == "notice" and "no answer to the permission request" in e.to_dict()["message"]
        for e in turn_.events
    )
    assert (ws_root / "src" / "main.py").read_text() == "print('hi')\n"
    r = await rig.post(answer(paused["pending"][0]["tool_call_id"], "allow"))
    assert (r.status_code, r.json()["error"]["code"]) == (409, "not_pending")
    fake_llm.script("Hello again.")
    r = await rig.post(turn("are you there?"))
    assert (r.status_code, r.json()["answer"]) == (200, "Hello again.")


async def test_a_new_message_while_paused_is_409_with_the_pending_calls(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    paused = await pause_on_edit(agent_rig, fake_llm)
    r = await agent_rig.post(turn("something else"))
    assert r.status_code == 409
    body = r.json()
    assert body["error"]["code"] == "permission_pending"
    assert body["pending"] == paused["pending"]


async def test_answering_a_call_that_is_not_waiting_is_409(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    r = await agent_rig.post(answer("nope", "allow"))
    assert (r.status_code, r.json()["error"]["code"]) == (404, "session_not_found")
    paused = await pause_on_edit(agent_rig, fake_llm)
    r = await agent_rig.post(answer("nope", "allow"))
    assert (r.status_code, r.json()["error"]["code"]) == (409, "not_pending")
    assert "call 'nope' in session" in r.json()["error"]["message"]
    assert r.json()["pending"] == paused["pending"]


async def test_answering_with_input_is_refused(agent_rig: Rig, fake_llm: FakeModelServer) -> None:
    paused = await pause_on_edit(agent_rig, fake_llm)
    body = answer(paused["pending"][0]["tool_call_id"], "allow")
    body["input"] = [{"content": "and also this"}]
    r = await agent_rig.post(body)
    assert r.status_code == 400
    assert r.json()["error"]["message"] == (
        "input: must be empty when answering biz_params.permission"
    )


# -- one turn per session, cancellation ----------------------------------------------------


async def test_a_second_turn_while_one_runs_is_409_and_cancel_stops_it(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="I am thinking about this for a long time"))
    fake_llm.fail_next(Fault(stall=True, after=2))
    first = asyncio.ensure_future(agent_rig.post(turn("think")))
    await asyncio.to_thread(fake_llm.wait_requests, 1)  # the model is streaming: the turn runs
    r = await agent_rig.post(turn("and now this"))
    assert r.status_code == 409
    assert r.json()["error"] == {
        "code": "session_busy",
        "message": "session 's1' is already running a turn: wait for its response or cancel "
        "it with biz_params.cancel",
    }
    cancel = {"session_id": "s1", "user_id": "u1", "biz_params": {"cancel": True}}
    r = await agent_rig.post(cancel)
    assert (r.status_code, r.json()["stop_reason"]) == (200, "cancelled")
    assert (await first).json()["stop_reason"] == "cancelled"
    r = await agent_rig.post(cancel)
    assert (r.status_code, r.json()["error"]["code"]) == (409, "not_pending")


async def test_other_sessions_run_meanwhile(agent_rig: Rig, fake_llm: FakeModelServer) -> None:
    await pause_on_edit(agent_rig, fake_llm)
    fake_llm.script("independent")
    r = await agent_rig.post(turn("hi", session="s2"))
    assert (r.status_code, r.json()["answer"]) == (200, "independent")


# -- users -------------------------------------------------------------------------------


async def test_each_user_id_has_its_own_sessions(agent_rig: Rig, fake_llm: FakeModelServer) -> None:
    paused = await pause_on_edit(agent_rig, fake_llm, user="alice")
    call_id = paused["pending"][0]["tool_call_id"]
    not_found = {
        "code": "session_not_found",
        "message": "no session 's1' for user_id 'mallory'",
    }
    for body in (
        answer(call_id, "allow", user="mallory"),
        {"session_id": "s1", "user_id": "mallory", "biz_params": {"cancel": True}},
    ):
        r = await agent_rig.post(body)
        assert (r.status_code, r.json()["error"]) == (404, not_found)
    # mallory's "s1" is a session of her own: alice's history and pause are not in it
    fake_llm.script("Hello Mallory.")
    r = await agent_rig.post(turn("hi", user="mallory"))
    assert (r.status_code, r.json()["answer"]) == (200, "Hello Mallory.")
    assert [m["content"] for m in fake_llm.requests[-1].body["messages"][1:]] == ["hi"]
    tool = {"name": "read_file", "input": {"path": "README.md"}}
    r = await agent_rig.post(
        {"session_id": "s1", "user_id": "mallory", "biz_params": {"tool": tool}}
    )
    assert r.status_code == 200
    fake_llm.script("Done.")
    r = await agent_rig.post(answer(call_id, "allow", user="alice"))
    assert (r.status_code, r.json()["answer"]) == (200, "Done.")


async def test_owners_survive_a_restart(
    make: Make, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    first = make(fake=fake_llm)
    fake_llm.script("remembered")
    await first.post(turn("note this", user="alice"))
    await first.close()
    second = make(fake=fake_llm)
    fake_llm.script("hi bob")
    r = await second.post(turn("hi", user="bob"))
    assert r.json()["answer"] == "hi bob"
    fake_llm.script("still here")
    r = await second.post(turn("and now?", user="alice"))
    assert r.json()["answer"] == "still here"
    history = [m["content"] for m in fake_llm.requests[-1].body["messages"][1:]]
    assert history == ["note this", "remembered", "and now?"]


# -- the agent's tools ---------------------------------------------------------------------


async def test_without_the_shell_the_agent_has_no_command_tools(
    agent_rig: Rig, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    names = agent_rig.gateway.spec().toolkit.names()
    assert {"command", "input", "ctrl"}.isdisjoint(names) and "edit" in names
    fake_llm.script("<tools><command>touch made-by-agent</command></tools>", "ok")
    r = await agent_rig.post(turn("run it"))
    assert r.status_code == 200
    assert not (ws_root / "made-by-agent").exists()
    assert "unknown tool 'command'" in fake_llm.requests[1].body["messages"][-1]["content"]


async def test_with_the_shell_enabled_commands_ask_first(
    make: Make, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    # (sandboxed commands no rule judges would run without asking: this is about asking)
    no_auto = {"sandbox": {"autoApprove": False}}
    rig = make(fake=fake_llm, gateway={"enableShell": True}, shell=no_auto)
    fake_llm.script("<tools><command>touch made-by-agent</command></tools>", "ran it")
    r = await rig.post(turn("run it"))
    assert r.status_code == 202
    (call,) = r.json()["pending"]
    assert (call["tool"], call["confirmation"]["kind"]) == ("command", "command")
    assert not (ws_root / "made-by-agent").exists()
    r = await rig.post(answer(call["tool_call_id"], "allow"))
    assert r.json()["answer"] == "ran it"
    assert (ws_root / "made-by-agent").exists()


def test_owners_written_by_an_older_version_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "gateway.db"
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE gateway_sessions (session_id TEXT PRIMARY KEY, user_id TEXT NOT NULL,"
        " store_id TEXT NOT NULL, channel TEXT, created REAL NOT NULL)"
    )
    old.execute("INSERT INTO gateway_sessions VALUES ('s1', 'alice', 'abc123', NULL, 0)")
    old.commit()
    old.close()
    owners = SessionOwners(path)
    assert owners.get("alice", "s1") == Owner("s1", "alice", "abc123")
    assert owners.get("bob", "s1") is None
    owners.close()


async def test_the_task_list_streams_as_todos_events(
    agent_rig: Rig, fake_llm: FakeModelServer
) -> None:
    from tests.support.workflow import FIRST, SECOND, todo_reply

    fake_llm.script(todo_reply(*FIRST), todo_reply(*SECOND), Reply(text="Done."))
    r = await agent_rig.post(turn("fix it", stream=True))
    todos = [e.data["items"] for e in parse_sse(r.text) if e.event == "todos"]
    assert todos == [
        [{"id": i, "text": t, "status": s} for i, t, s in FIRST],
        [{"id": i, "text": t, "status": s} for i, t, s in SECOND],
    ]


async def test_a_secret_in_an_edit_reaches_the_file_and_no_response_log_or_row(
    agent_rig: Rig, fake_llm: FakeModelServer, ws_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "gw-3c9d1e7f5a2b"
    agent_rig.runtime.vault.remember("API_TOKEN", secret)
    fake_llm.script(EDIT.replace("print('hello')", "print('$KARYI{API_TOKEN}')"))
    caplog.set_level(logging.DEBUG)
    paused = (await agent_rig.post(turn("use the token"))).json()
    assert "$KARYI{API_TOKEN}" in str(paused) and secret not in str(paused)
    fake_llm.script("Done.")
    call_id = paused["pending"][0]["tool_call_id"]
    r = await agent_rig.post(answer(call_id, "allow", stream=True))
    assert (ws_root / "src" / "main.py").read_text() == f"print('{secret}')\n"
    assert secret not in r.text and "$KARYI{API_TOKEN}" in r.text
    assert all(secret not in str(q.body) for q in fake_llm.requests)
    assert secret not in caplog.text
    stored = b"".join(p.read_bytes() for p in (ws_root / ".karyi").rglob("*") if p.is_file())
    assert secret.encode() not in stored
