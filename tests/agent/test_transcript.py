"""The transcript: a stored session read back as the user saw it, in every dialect."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from karyi.agent.review.approval import deny_all
from karyi.agent.session.store import SCHEMA, SessionStore
from karyi.agent.session.store_messages import MessageRow
from karyi.agent.session.transcript import CallBlock, NoticeBlock, TextBlock, Transcript
from karyi.agent.session.transcript_build import ParserFor, build_transcript, load_transcript
from karyi.llm.base import Message
from karyi.protocol import get_dialect
from karyi.protocol.calls import DialectState
from karyi.tools.context import ToolContext
from tests.support.harness import Harness, toolkit, window_with_room
from tests.support.scripted import NativeReply

DIALECTS = ["toolsxml", "agentxml", "toolcall", "native"]
MARKUP = ("<tools", "<tool_", "<invoke", "<function", "<![CDATA[", "tools_result", "</")


def parser_for(dialect: str) -> ParserFor:
    schema = toolkit().schema
    return lambda state: get_dialect(dialect).parser(schema, state)


def call_reply(dialect: str, prose: str) -> str | NativeReply:
    params = {"text": "hello"}
    if dialect == "native":
        return NativeReply([("call_1", "write_note", '{"text": "hello"}')], prose)
    return f"{prose}\n{get_dialect(dialect).format_call('write_note', params)}"


def transcript_of(h: Harness, dialect: str) -> Transcript:
    return load_transcript(h.store, h.conv.id, parser_for(dialect))


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_a_session_reads_back_as_it_was_said(ctx: ToolContext, dialect: str) -> None:
    replies = [call_reply(dialect, "I will write the note."), "The note is written."]
    h = Harness(ctx, replies, dialect=dialect)
    await h.agent.run("write a note", context="Selection: notes.txt")

    transcript = transcript_of(h, dialect)

    [turn] = transcript.turns
    assert (turn.prompt, turn.context) == ("write a note", "Selection: notes.txt")
    texts = [b.text for b in turn.blocks if isinstance(b, TextBlock)]
    assert " ".join(" ".join(texts).split()) == "I will write the note. The note is written."
    [call] = [b for b in turn.blocks if isinstance(b, CallBlock)]
    assert (call.name, call.params, call.status) == ("write_note", {"text": "hello"}, "done")
    assert call.summary == "written"
    shown = str(transcript.to_json())
    assert not any(mark in shown for mark in MARKUP), shown
    assert turn.stop_reason == "end_turn"


@pytest.mark.parametrize("dialect", ["toolsxml", "native"])
async def test_each_turn_is_its_own_entry(ctx: ToolContext, dialect: str) -> None:
    h = Harness(ctx, ["First answer.", "Second answer."], dialect=dialect)
    await h.agent.run("first question")
    await h.agent.run("second question")

    turns = transcript_of(h, dialect).turns

    assert [t.prompt for t in turns] == ["first question", "second question"]
    assert [[b.text for b in t.blocks if isinstance(b, TextBlock)] for t in turns] == [
        ["First answer."],
        ["Second answer."],
    ]


async def test_a_rejected_call_and_a_failed_one_show_as_such(ctx: ToolContext) -> None:
    write = get_dialect("toolsxml").format_call("write_note", {"text": "x"})
    bad = "<tools><no_such_tool/></tools>"
    h = Harness(ctx, [write, bad, "Stopped."], approver=deny_all)
    await h.agent.run("try")

    calls = [b for b in transcript_of(h, "toolsxml").turns[0].blocks if isinstance(b, CallBlock)]

    assert [(c.name, c.status) for c in calls] == [
        ("write_note", "rejected"),
        ("no_such_tool", "failed"),
    ]
    assert calls[1].error and "no_such_tool" in calls[1].error


async def test_compacted_turns_stay_in_the_transcript(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "big.txt").write_text("x" * 3000 + "\n")
    read = '<tools><read><file src="big.txt"/></read></tools>'
    window = await window_with_room(ctx, 3000)  # four reads of big.txt, not six
    h = Harness(ctx, [read] * 6 + ["done"])
    h.provider.context_window = window
    await h.agent.run("read a lot")

    [turn] = transcript_of(h, "toolsxml").turns

    calls = [b for b in turn.blocks if isinstance(b, CallBlock)]
    assert len(calls) == 6 and all(c.name == "read" and c.status == "done" for c in calls)
    assert any(isinstance(b, NoticeBlock) and b.notice == "compacted" for b in turn.blocks)
    assert all("[elided" not in c.summary for c in calls)
    # The model is still sent the compacted history, once.
    sent = h.store.messages(h.conv.id)
    assert sum(m.content.startswith("[elided") for m in sent) >= 1
    assert sum(m.role == "user" and m.content.startswith("read a lot") for m in sent) == 1


def test_a_store_from_an_older_version_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    old = sqlite3.connect(path)
    schema = SCHEMA.replace("    status TEXT NOT NULL DEFAULT '',\n", "")
    schema = schema.replace("    copy INTEGER NOT NULL DEFAULT 0,\n", "")
    schema = schema.replace("    prompt TEXT NOT NULL DEFAULT '',\n", "")
    schema = schema.replace("    context TEXT NOT NULL DEFAULT '',\n", "")
    old.executescript(schema)
    old.execute("INSERT INTO sessions (id, created, updated, dialect) VALUES ('s1', 0, 0, 'x')")
    old.execute("INSERT INTO turns (session_id, turn_id, started) VALUES ('s1', 't1', 0)")
    for seq, role, content in [(0, "user", "hello"), (1, "assistant", "Hi there.")]:
        old.execute(
            "INSERT INTO messages (session_id, seq, turn_id, role, content, created)"
            " VALUES ('s1', ?, 't1', ?, ?, 0)",
            (seq, role, content),
        )
    old.commit()
    old.close()

    store = SessionStore(path)
    [turn] = load_transcript(store, "s1", parser_for("toolsxml")).turns
    store.close()

    assert turn.prompt == "hello"
    assert turn.blocks == (TextBlock("Hi there."),)


def test_parser_state_is_shared_across_the_session() -> None:
    # One state for the whole session: a text dialect numbers its calls across replies.
    seen: list[DialectState] = []

    def spy(state: DialectState):  # type: ignore[no-untyped-def]
        seen.append(state)
        return get_dialect("toolsxml").parser(toolkit().schema, state)

    rows = [
        MessageRow(0, "t1", "", False, Message("user", "hi")),
        MessageRow(1, "t1", "", False, Message("assistant", "one")),
        MessageRow(2, "t1", "", False, Message("assistant", "two")),
    ]
    build_transcript(rows, [], [], spy, session_id="s")
    assert len(seen) == 2 and seen[0] is seen[1]


def test_what_the_user_typed_is_stored_redacted(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db", redact=lambda text: text.replace("hunter2", "***"))
    sid = store.create()
    store.start_turn(sid, "t1", "log in with hunter2", "Selection: hunter2")
    [turn] = store.turns(sid)
    store.close()
    assert (turn["prompt"], turn["context"]) == ("log in with ***", "Selection: ***")
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("s.db*"))
    assert b"hunter2" not in raw
