"""Sessions over LSP: listed, loaded, continued and deleted across a server restart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from karyi.core.plain_json import plain
from karyi.protocol import get_dialect
from tests.lsp.conftest import Start, request
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Call, Reply

AUTO = {"permissions": {"tools": {"edit": "auto"}}}
MARKUP = ("<tools", "<tool_", "<invoke", "<function", "CDATA", "tools_result", "</")


def creates(dialect: str, path: str, text: str) -> Reply:
    """A reply in `dialect` that creates `path` with `text` through the edit tool."""
    params = {"files": [{"src": path, "pairs": [{"find": "", "replace": text}]}]}
    if dialect == "native":
        return Reply(text=f"Creating {path}.", calls=[Call("edit", params)])
    return Reply(text=f"Creating {path}.\n{get_dialect(dialect).format_call('edit', params)}")


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
    assert [t.prompt for t in loaded.transcript.turns] == ["remember me"]
    again = await request(second, "karyi/chat", {"sessionId": result.sessionId, "message": "again"})
    assert again.finalAnswer == "Second."
    sent = [m["content"] for m in fake_llm.requests[-1].body["messages"][1:]]
    assert sent == ["remember me", "First.", "again"]
    deleted = await request(second, "karyi/deleteSession", {"sessionId": result.sessionId})
    assert plain(deleted) == {"deleted": result.sessionId}
    assert (await request(second, "karyi/sessions", {})).sessions == []


@pytest.mark.parametrize("dialect", ["toolsxml", "agentxml", "toolcall", "native"])
async def test_a_loaded_session_reads_as_it_did_live(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path, dialect: str
) -> None:
    fake_llm.script(creates(dialect, "new.txt", "made\n"), Reply(text="Made it."))
    client = await lsp(ui=False, settings={**AUTO, "dialect": dialect})
    result = await request(client, "karyi/chat", {"message": "make a file"})
    await client.shutdown_session()
    again = await lsp(ui=False, settings={**AUTO, "dialect": dialect})

    loaded = plain(await request(again, "karyi/loadSession", {"sessionId": result.sessionId}))

    [turn] = loaded["transcript"]["turns"]
    assert turn["prompt"] == "make a file" and turn["status"] == "live"
    kinds = [b["kind"] for b in turn["blocks"]]
    assert kinds.count("call") == 1 and "text" in kinds
    [call] = [b for b in turn["blocks"] if b["kind"] == "call"]
    assert (call["name"], call["status"], call["description"]) == ("edit", "done", "Edit new.txt")
    assert call["files"] == [
        {"path": "new.txt", "added": 1, "removed": 0, "created": True, "deleted": False}
    ]
    prose = " ".join(b["text"] for b in turn["blocks"] if b["kind"] == "text")
    assert "Creating new.txt." in prose and "Made it." in prose
    # What the chat shows; a call's `output` is the tool's own text, whatever it holds.
    shown = json.dumps([turn["prompt"], prose, call["summary"], call["params"]])
    assert not any(mark in shown for mark in MARKUP), shown


async def rewound_setup(lsp: Start, fake_llm: FakeModelServer) -> tuple[Any, Any, list[str]]:
    fake_llm.script(
        creates("toolsxml", "one.txt", "1\n"),
        Reply(text="One made."),
        creates("toolsxml", "two.txt", "2\n"),
        Reply(text="Two made."),
    )
    client = await lsp(ui=False, settings=AUTO)
    first = await request(client, "karyi/chat", {"message": "make one"})
    second = await request(
        client, "karyi/chat", {"sessionId": first.sessionId, "message": "make two"}
    )
    return client, first.sessionId, [first.turnId, second.turnId]


async def test_rewind_drops_the_turns_from_the_model_and_restores_the_files(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, sid, (_, second) = await rewound_setup(lsp, fake_llm)
    (ws_root / "mine.txt").write_text("the user's own file\n")
    ask = {"sessionId": sid, "turnId": second}

    plan = plain(await request(client, "karyi/rewind", {**ask, "dryRun": True}))
    assert (plan["done"], plan["prompt"], plan["turns"]) == (False, "make two", 1)
    assert {(f["path"], f["effect"], f["byAgent"]) for f in plan["files"]} == {
        ("two.txt", "deleted", True),
        ("mine.txt", "deleted", False),
    }
    assert (ws_root / "two.txt").exists()

    done = plain(await request(client, "karyi/rewind", ask))

    assert (done["done"], done["conversation"]) == (True, True)
    assert (done["restored"], done["kept"]) == (["two.txt"], ["mine.txt"])
    assert not (ws_root / "two.txt").exists() and (ws_root / "one.txt").exists()
    assert (ws_root / "mine.txt").exists()
    fake_llm.script(Reply(text="Three."))
    await request(client, "karyi/chat", {"sessionId": sid, "message": "now three"})
    sent = " ".join(str(m["content"]) for m in fake_llm.requests[-1].body["messages"][1:])
    assert "make one" in sent and "make two" not in sent and "Two made." not in sent
    loaded = plain(await request(client, "karyi/loadSession", {"sessionId": sid}))
    statuses = [(t["prompt"], t["status"]) for t in loaded["transcript"]["turns"]]
    assert statuses == [("make one", "live"), ("make two", "rewound"), ("now three", "live")]
    undone = await request(
        client, "karyi/restoreCheckpoint", {"checkpointId": done["undoCheckpoint"]}
    )
    assert undone.restored == done["undoCheckpoint"] and (ws_root / "two.txt").exists()


async def test_rewind_of_the_code_only_keeps_the_conversation(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, sid, (first, _) = await rewound_setup(lsp, fake_llm)

    done = plain(
        await request(
            client, "karyi/rewind", {"sessionId": sid, "turnId": first, "restore": "code"}
        )
    )

    assert done["conversation"] is False and sorted(done["restored"]) == ["one.txt", "two.txt"]
    assert not (ws_root / "one.txt").exists()
    loaded = plain(await request(client, "karyi/loadSession", {"sessionId": sid}))
    assert [t["status"] for t in loaded["transcript"]["turns"]] == ["live", "live"]


async def test_a_fork_has_a_new_id_and_the_first_turns(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, sid, (first, _) = await rewound_setup(lsp, fake_llm)

    fork = plain(await request(client, "karyi/forkSession", {"sessionId": sid, "turnId": first}))

    assert fork["sessionId"] != sid and fork["title"] == "make one (fork)"
    loaded = plain(await request(client, "karyi/loadSession", {"sessionId": fork["sessionId"]}))
    assert [t["prompt"] for t in loaded["transcript"]["turns"]] == ["make one"]
    listed = await request(client, "karyi/sessions", {})
    assert {s.id for s in listed.sessions} == {sid, fork["sessionId"]}


async def test_a_rewind_is_refused_for_an_unknown_turn(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    from pygls.exceptions import JsonRpcException

    client, sid, _ = await rewound_setup(lsp, fake_llm)
    with pytest.raises(JsonRpcException) as refused:
        await request(client, "karyi/rewind", {"sessionId": sid, "turnId": "nope"})
    assert "no turn 'nope' to rewind to" in refused.value.message
    with pytest.raises(JsonRpcException) as bad:
        await request(client, "karyi/rewind", {"sessionId": sid, "turnId": "x", "restore": "all"})
    assert "restore: expected one of 'code', 'conversation', 'both'" in bad.value.message
