"""Edits through the editor: previewed with hunks, accepted per hunk, applied with
`workspace/applyEdit`, never over the user's keystrokes; the disk follows."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from karyi.core.plain_json import plain
from tests.lsp.conftest import TWO_HUNKS, FakeEditor, Start, edit_reply, request, wait_for_event
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


def sid(client: Any) -> str:
    return str(client.updates[0]["sessionId"])


async def start_edit(
    lsp: Start,
    fake: FakeModelServer,
    ws_root: Path,
    *,
    open_file: bool = True,
    editor: str = "visual-studio-code",
) -> tuple[Any, FakeEditor, str, Any, dict[str, Any]]:
    (ws_root / "calc.py").write_text(TWO_HUNKS)
    fake.script(edit_reply("calc.py"), Reply(text="Done."))
    client = await lsp(editor)
    ed = FakeEditor(client)
    uri = ed.open(ws_root / "calc.py") if open_file else (ws_root / "calc.py").as_uri()
    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "bump the numbers"}))
    awaiting = await wait_for_event(client, "toolAwaitingPermission")
    return client, ed, uri, chat, awaiting


async def test_preview_has_files_with_hunks(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, _ed, uri, chat, awaiting = await start_edit(lsp, fake_llm, ws_root)
    [file] = awaiting["confirmation"]["files"]
    assert (file["uri"], file["path"], file["version"]) == (uri, "calc.py", 1)
    assert file["original"] == TWO_HUNKS and "return 10" in file["proposed"]
    assert [h["id"] for h in file["hunks"]] == ["h1", "h2"]
    assert file["hunks"][0]["range"] == {
        "start": {"line": 1, "character": 0},
        "end": {"line": 2, "character": 0},
    }
    diffs = await request(client, "karyi/fileDiffs", {"sessionId": sid(client)})
    call_id = awaiting["call"]["id"]
    assert plain(diffs) == {"pending": [{"toolCallId": call_id, "files": [file]}], "applied": []}
    answered = await request(
        client,
        "karyi/confirmTool",
        {"sessionId": sid(client), "toolCallId": call_id, "outcome": "reject"},
    )
    assert plain(answered) == {"ok": True}
    await chat


async def test_accept_one_hunk_reject_the_other(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path, editor: str
) -> None:
    client, ed, uri, chat, awaiting = await start_edit(lsp, fake_llm, ws_root, editor=editor)
    await request(
        client,
        "karyi/confirmTool",
        {
            "sessionId": sid(client),
            "toolCallId": awaiting["call"]["id"],
            "outcome": "allowOnce",
            "acceptedHunks": ["h2"],
        },
    )
    assert (await chat).finalAnswer == "Done."
    expected = TWO_HUNKS.replace("return 2", "return 20")
    assert ed.text(uri) == expected  # through workspace/applyEdit
    assert (ws_root / "calc.py").read_text() == expected  # and on disk
    [applied] = ed.applied
    if editor == "visual-studio-code":  # versioned, annotated edits where the client has them
        change = applied["edit"]["documentChanges"][0]
        assert change["textDocument"]["version"] == 1
        assert change["edits"][0]["annotationId"] == "karyi"
        assert applied["edit"]["changeAnnotations"]["karyi"]["needsConfirmation"] is False
    else:  # Neovim declares neither: plain `changes`
        assert list(applied["edit"]["changes"]) == [uri]
    told = fake_llm.requests[1].body["messages"][-1]["content"]
    assert "the user applied hunk(s) h2 and rejected h1" in told
    done = [u["event"] for u in client.updates if u["event"]["type"] == "fileChanged"]
    assert done and done[0]["files"][0]["proposed"] == expected
    diffs = await request(client, "karyi/fileDiffs", {"sessionId": sid(client)})
    assert diffs.applied[0].files[0].proposed == expected


async def test_user_edits_the_proposal(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, ed, uri, chat, awaiting = await start_edit(lsp, fake_llm, ws_root)
    mine = TWO_HUNKS.replace("return 1", "return 100")
    await request(
        client,
        "karyi/confirmTool",
        {
            "sessionId": sid(client),
            "toolCallId": awaiting["call"]["id"],
            "outcome": "allowOnce",
            "modifiedContent": [{"uri": uri, "text": mine}],
        },
    )
    await chat
    assert ed.text(uri) == mine and (ws_root / "calc.py").read_text() == mine
    told = fake_llm.requests[1].body["messages"][-1]["content"]
    assert "The user edited your change to calc.py before applying it" in told
    assert "+    return 100" in told


async def test_typing_after_the_proposal_is_kept(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, ed, uri, chat, awaiting = await start_edit(lsp, fake_llm, ws_root)
    typed = "# the user's comment\n" + TWO_HUNKS
    ed.type(uri, typed)  # the user types while the edit waits for approval
    await request(
        client,
        "karyi/confirmTool",
        {"sessionId": sid(client), "toolCallId": awaiting["call"]["id"], "outcome": "allowOnce"},
    )
    await chat
    expected = typed.replace("return 1", "return 10").replace("return 2", "return 20")
    assert ed.text(uri) == expected
    assert (ws_root / "calc.py").read_text() == expected
    assert ed.applied[0]["edit"]["documentChanges"][0]["textDocument"]["version"] == 2


async def test_typing_during_apply_is_rebased(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, ed, uri, chat, awaiting = await start_edit(lsp, fake_llm, ws_root)
    ed.interfere = TWO_HUNKS + "\n# typed while the edit was on its way\n"
    await request(
        client,
        "karyi/confirmTool",
        {"sessionId": sid(client), "toolCallId": awaiting["call"]["id"], "outcome": "allowOnce"},
    )
    await chat
    assert ed.refused == 1  # the first applyEdit was for a stale version
    expected = (
        TWO_HUNKS.replace("return 1", "return 10").replace("return 2", "return 20")
        + "\n# typed while the edit was on its way\n"
    )
    assert ed.text(uri) == expected and (ws_root / "calc.py").read_text() == expected


async def test_overlapping_typing_refuses_the_edit(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, ed, uri, chat, awaiting = await start_edit(lsp, fake_llm, ws_root)
    mine = TWO_HUNKS.replace("return 1", "return 'mine'")
    ed.type(uri, mine)
    await request(
        client,
        "karyi/confirmTool",
        {"sessionId": sid(client), "toolCallId": awaiting["call"]["id"], "outcome": "allowOnce"},
    )
    await chat
    assert ed.text(uri) == mine and not ed.applied
    assert (ws_root / "calc.py").read_text() == TWO_HUNKS  # disk untouched too
    told = fake_llm.requests[1].body["messages"][-1]["content"]
    # the edit is recomputed against the user's text at execution: it no longer applies
    assert 'status="error"' in told and "the find text was not found" in told


async def test_a_closed_file_is_written_to_disk(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, ed, _uri, chat, awaiting = await start_edit(lsp, fake_llm, ws_root, open_file=False)
    await request(
        client,
        "karyi/confirmTool",
        {"sessionId": sid(client), "toolCallId": awaiting["call"]["id"], "outcome": "allowOnce"},
    )
    await chat
    assert not ed.applied
    assert "return 10" in (ws_root / "calc.py").read_text()


async def test_reject_always(lsp: Start, fake_llm: FakeModelServer, ws_root: Path) -> None:
    (ws_root / "calc.py").write_text(TWO_HUNKS)
    fake_llm.script(edit_reply("calc.py"), edit_reply("calc.py"), Reply(text="Gave up."))
    client = await lsp()
    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "bump"}))
    awaiting = await wait_for_event(client, "toolAwaitingPermission")
    await request(
        client,
        "karyi/confirmTool",
        {
            "sessionId": sid(client),
            "toolCallId": awaiting["call"]["id"],
            "outcome": "rejectAlways",
            "feedback": "do not touch calc.py",
        },
    )
    assert (await chat).finalAnswer == "Gave up."
    second = fake_llm.requests[2].body["messages"][-1]["content"]
    assert "the user rejects every call like this edit call" in second
    assert sum(1 for u in client.updates if u["event"]["type"] == "toolAwaitingPermission") == 1


async def test_get_value_is_answered_and_never_echoed(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    secret = "tok-9f8e7d6c5b"
    fake_llm.script(
        Reply(text='<tools><get_value key="DEPLOY_TOKEN" reason="to deploy"/></tools>'),
        Reply(text="<tools><command>echo got=$KARYI{DEPLOY_TOKEN}</command></tools>"),
        Reply(text="Deployed."),
    )
    client = await lsp(settings={"permissions": {"tools": {"command": "auto"}}})
    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "deploy"}))
    asked = await wait_for_event(client, "valueRequested")
    assert (asked["key"], asked["reason"]) == ("DEPLOY_TOKEN", "to deploy")
    with pytest.raises(JsonRpcException, match="no value 'OTHER' is being asked for"):
        await request(
            client, "karyi/provideValue", {"sessionId": sid(client), "key": "OTHER", "value": "x"}
        )
    provided = await request(
        client,
        "karyi/provideValue",
        {"sessionId": sid(client), "key": "DEPLOY_TOKEN", "value": secret},
    )
    assert plain(provided) == {"ok": True}
    assert (await chat).finalAnswer == "Deployed."
    assert "got=$KARYI{DEPLOY_TOKEN}" in fake_llm.requests[2].body["messages"][-1]["content"]
    assert secret not in str(client.updates)
    assert all(secret not in str(r.body) for r in fake_llm.requests)
    mirrored = "".join(n["data"] for n in client.terminal)
    assert "got=" in mirrored and secret not in mirrored


async def answer_hunks(client: Any, awaiting: dict[str, Any], accepted: list[str]) -> None:
    await request(
        client,
        "karyi/confirmTool",
        {
            "sessionId": sid(client),
            "toolCallId": awaiting["call"]["id"],
            "outcome": "allowOnce",
            "acceptedHunks": accepted,
        },
    )


def told_next(fake: FakeModelServer) -> str:
    """What the model reads in its next request: the text of the edit's result."""
    return str(fake.requests[1].body["messages"][-1]["content"])


async def test_a_partial_answer_on_a_closed_file_tells_the_model_what_is_on_disk(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, ed, _uri, chat, awaiting = await start_edit(lsp, fake_llm, ws_root, open_file=False)
    await answer_hunks(client, awaiting, ["h1"])
    assert (await chat).finalAnswer == "Done."
    assert not ed.applied
    assert (ws_root / "calc.py").read_text() == TWO_HUNKS.replace("return 1", "return 10")
    assert told_next(fake_llm) == (
        "<tools_result>\n"
        '<result index="0" tool="edit" status="ok"><![CDATA['
        "In calc.py the user applied hunk(s) h1 and rejected h2.\n"
        "calc.py: the user applied only part of your edit; what the file holds now, "
        "change by change:\n"
        "h1: applied as you proposed. Lines 1-5 now:\n"
        "  1: def one():\n"
        "  2:     return 10\n"
        "  3:\n"
        "  4:\n"
        "  5:\n"
        "h2: rejected by the user, not applied. You proposed:\n"
        "  -    return 2\n"
        "  +    return 20\n"
        "Lines 7-10 now (unchanged):\n"
        "   7:\n"
        "   8:\n"
        "   9: def two():\n"
        "  10:     return 2\n"
        "Continue from the file as shown here, not from your proposal.]]></result>\n"
        "</tools_result>"
    )


async def test_a_partial_answer_on_an_open_buffer_the_user_changed(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, ed, uri, chat, awaiting = await start_edit(lsp, fake_llm, ws_root)
    typed = "# checked by hand\n" + TWO_HUNKS
    ed.type(uri, typed)  # the user types in the buffer before answering
    await answer_hunks(client, awaiting, ["h2"])
    assert (await chat).finalAnswer == "Done."
    expected = typed.replace("return 2", "return 20")
    assert ed.text(uri) == expected  # the buffer, through workspace/applyEdit
    assert (ws_root / "calc.py").read_text() == expected  # and the disk
    assert told_next(fake_llm) == (
        "<tools_result>\n"
        '<result index="0" tool="edit" status="ok"><![CDATA['
        "In calc.py the user applied hunk(s) h2 and rejected h1.\n"
        "calc.py: the user applied only part of your edit; what the file holds now, "
        "change by change:\n"
        "h1: rejected by the user, not applied. You proposed:\n"
        "  -    return 1\n"
        "  +    return 10\n"
        "Lines 1-6 now (unchanged):\n"
        "  1: # checked by hand\n"
        "  2: def one():\n"
        "  3:     return 1\n"
        "  4:\n"
        "  5:\n"
        "  6:\n"
        "h2: applied as you proposed. Lines 8-11 now:\n"
        "   8:\n"
        "   9:\n"
        "  10: def two():\n"
        "  11:     return 20\n"
        "Note: calc.py changed between the preview the user answered and the write (the "
        "user typed in it, or it changed on disk); that change is kept, so lines not shown "
        "here may differ from what you read.\n"
        "Continue from the file as shown here, not from your proposal.]]></result>\n"
        "</tools_result>"
    )


async def test_typing_while_a_partial_answer_is_applied_is_shown_as_the_users(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    client, ed, uri, chat, awaiting = await start_edit(lsp, fake_llm, ws_root)
    ed.interfere = TWO_HUNKS + "# typed while the edit was on its way\n"
    await answer_hunks(client, awaiting, ["h1"])
    await chat
    expected = (
        TWO_HUNKS.replace("return 1", "return 10") + "# typed while the edit was on its way\n"
    )
    assert ed.text(uri) == expected and (ws_root / "calc.py").read_text() == expected
    told = told_next(fake_llm)
    assert "h2: rejected by the user, not applied." in told
    assert told.endswith(
        "The user also changed these lines (not part of your edit). Lines 8-11 now:\n"
        "   8:\n"
        "   9: def two():\n"
        "  10:     return 2\n"
        "  11: # typed while the edit was on its way\n"
        "Continue from the file as shown here, not from your proposal.]]></result>\n"
        "</tools_result>"
    )


async def test_a_partial_answer_with_own_text_keeps_the_secret_out_of_every_output(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    """The user rewrites an edit whose text has `$KARYI{API_TOKEN}`: the file gets the
    value; events, the model, the log and the session store see only the placeholder."""
    secret = "tok-5e1f0a9b7c3d"
    (ws_root / "calc.py").write_text(TWO_HUNKS)
    fake_llm.script(
        Reply(text='<tools><get_value key="API_TOKEN" reason="to call the API"/></tools>'),
        Reply(
            text='<tools><edit><file src="calc.py">'
            '<find>    return 1</find><replace>    return "$KARYI{API_TOKEN}"</replace>'
            "<find>    return 2</find><replace>    return 20</replace>"
            "</file></edit></tools>"
        ),
        Reply(text="Done."),
    )
    client = await lsp()
    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "use the token"}))
    await wait_for_event(client, "valueRequested")
    value = {"sessionId": sid(client), "key": "API_TOKEN", "value": secret}
    await request(client, "karyi/provideValue", value)
    awaiting = await wait_for_event(client, "toolAwaitingPermission")
    [file] = awaiting["confirmation"]["files"]
    assert '"$KARYI{API_TOKEN}"' in file["proposed"] and secret not in str(awaiting)
    own = file["proposed"].replace("    return 20", "    return 2  # kept by the user")
    await request(
        client,
        "karyi/confirmTool",
        {
            "sessionId": sid(client),
            "toolCallId": awaiting["call"]["id"],
            "outcome": "allowOnce",
            "acceptedHunks": ["h1"],
            "modifiedContent": [{"uri": file["uri"], "text": own}],
        },
    )
    assert (await chat).finalAnswer == "Done."
    written = (ws_root / "calc.py").read_text()
    assert f'    return "{secret}"' in written and "kept by the user" in written
    assert "$KARYI{" not in written
    assert secret not in str(client.updates) and secret not in str(client.log_messages)
    assert all(secret not in str(r.body) for r in fake_llm.requests)
    told = str(fake_llm.requests[-1].body["messages"][-1]["content"])
    assert "$KARYI{API_TOKEN}" in told or "API_TOKEN" in told
    diffs = await request(client, "karyi/fileDiffs", {"sessionId": sid(client)})
    assert secret not in str(diffs)
    stored = b"".join(p.read_bytes() for p in (ws_root / ".karyi").rglob("*") if p.is_file())
    assert secret.encode() not in stored


async def test_an_answer_waits_for_the_buffer_the_client_handed_back(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    """Karyi's UI shows a proposal as real lines in the buffer and takes them out before it
    answers; the answer names the version without them, and the server waits for that
    version (its didChange may come later), so a preview line is never taken for the
    user's text and an accepted line is never written twice."""
    client, ed, uri, chat, awaiting = await start_edit(lsp, fake_llm, ws_root)
    with_preview = TWO_HUNKS.replace("    return 1\n", "    return 1\n    return 10\n")
    ed.type(uri, with_preview)  # v2: the preview placed in the buffer
    ed.docs[uri] = (3, TWO_HUNKS)  # v3: taken out again; its didChange is not sent yet
    answer = asyncio.ensure_future(
        request(
            client,
            "karyi/confirmTool",
            {
                "sessionId": sid(client),
                "toolCallId": awaiting["call"]["id"],
                "outcome": "allowOnce",
                "documents": [{"uri": uri, "version": 3}],
            },
        )
    )
    await request(client, "karyi/sessions", {})  # the server has read the answer by now
    await request(client, "karyi/sessions", {})
    assert ed.applied == [] and not answer.done(), "nothing runs on the stale buffer"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=TWO_HUNKS)],
        )
    )
    await answer
    await chat
    expected = TWO_HUNKS.replace("return 1", "return 10").replace("return 2", "return 20")
    assert ed.text(uri) == expected and (ws_root / "calc.py").read_text() == expected
    assert ed.applied[0]["edit"]["documentChanges"][0]["textDocument"]["version"] == 3
