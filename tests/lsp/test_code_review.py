"""`karyi.review` over plain LSP: findings published as diagnostics ("Karyi review"),
following the user's edits, replaced by a re-review; *Fix with Karyi* and *Dismiss*."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.conftest import FakeEditor, Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.review_model import CHANGED, Reviewers, calls, finding, project_with_change

FIX = "    return a / b if b else 0.0"
SCRIPT = {
    "correctness": [
        calls(finding("src/calc.py", 7, "error", "Division by zero when b is 0", suggestion=FIX)),
        "Done.",
    ],
    "tests": [calls(finding("src/calc.py", 6, "info", "ratio has no test")), "Done."],
}


async def _review(client: Any, args: dict[str, Any] | None = None) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="karyi.review", arguments=[args] if args else [])
    )


async def _published(client: Any, uri: str, count: int) -> list[types.Diagnostic]:
    """The diagnostics of `uri` once `count` of them are published."""
    for _ in range(200):
        found = list(client.diagnostics.get(uri, []))
        if len(found) == count:
            return found
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    raise AssertionError(f"never {count} diagnostics: {client.diagnostics.get(uri)}")


def _lines(diagnostics: list[types.Diagnostic]) -> list[tuple[int, int, str]]:
    return [(d.range.start.line, d.range.end.line, str(d.data["title"])) for d in diagnostics]


async def test_findings_are_diagnostics_that_follow_edits(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    project_with_change(ws_root)
    Reviewers(fake_llm, SCRIPT)
    client = await lsp("neovim", ui=False)
    ed = FakeEditor(client)
    uri = ed.open(ws_root / "src" / "calc.py")
    result = await _review(client)
    assert [f["title"] for f in result["findings"]] == [
        "ratio has no test",
        "Division by zero when b is 0",
    ]
    found = await _published(client, uri, 2)
    assert {d.source for d in found} == {"Karyi review"}
    assert [(d.severity, d.code) for d in found] == [
        (types.DiagnosticSeverity.Information, "tests"),
        (types.DiagnosticSeverity.Error, "correctness"),
    ]
    assert _lines(found) == [(5, 5, "ratio has no test"), (6, 6, "Division by zero when b is 0")]
    assert found[1].message == "Division by zero when b is 0\n\nBecause."
    assert found[1].range.end.character == len("    return a / b")  # whole lines, no more
    ed.type(uri, "import math\n\n" + CHANGED)  # two lines above both findings
    for _ in range(100):
        moved = list(client.diagnostics.get(uri, []))
        if _lines(moved)[0][0] == 7:
            break
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert _lines(moved) == [(7, 7, "ratio has no test"), (8, 8, "Division by zero when b is 0")]


async def test_fix_with_karyi_and_dismiss(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    project_with_change(ws_root)
    Reviewers(fake_llm, SCRIPT)
    client = await lsp("neovim", ui=False)
    ed = FakeEditor(client)
    uri = ed.open(ws_root / "src" / "calc.py")
    await _review(client)
    found = await _published(client, uri, 2)
    at_7 = types.Range(types.Position(6, 4), types.Position(6, 4))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=at_7,
            context=types.CodeActionContext(diagnostics=[found[1]]),
        )
    )
    assert actions is not None
    titles = [a.title for a in actions]
    assert titles == [
        "Fix with Karyi: Division by zero when b is 0",
        "Dismiss: Division by zero when b is 0",
    ]
    fix = actions[0]
    assert isinstance(fix, types.CodeAction) and fix.edit is not None
    assert fix.edit.changes is not None  # Neovim declares no change annotations
    (edit,) = fix.edit.changes[uri]
    assert (edit.range.start.line, edit.range.end.line, edit.new_text) == (6, 7, FIX + "\n")
    # (the client reads an action with only a command as a Command: its arguments are
    # the finding's uri and id, as the server sent them)
    dismiss = {"uri": uri, "id": found[1].data["id"]}
    assert str(dismiss) in str(actions[1])
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="karyi.dismissFinding", arguments=[dismiss])
    )
    assert answer == {"dismissed": 1}
    assert _lines(await _published(client, uri, 1)) == [(5, 5, "ratio has no test")]
    at_6 = types.Range(types.Position(5, 0), types.Position(5, 0))
    generic = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=at_6,
            context=types.CodeActionContext(diagnostics=list(client.diagnostics[uri])),
        )
    )
    assert generic is not None  # no suggestion: a turn about it, and Dismiss
    assert [a.title for a in generic] == ["Dismiss: ratio has no test", "Fix with Karyi"]


async def test_a_re_review_replaces_the_findings(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    project_with_change(ws_root)
    Reviewers(fake_llm, SCRIPT)
    client = await lsp("neovim", ui=False)
    uri = (ws_root / "src" / "calc.py").as_uri()
    await _review(client)
    await _published(client, uri, 2)
    Reviewers(fake_llm, {})
    again = await _review(client)
    assert again["findings"] == []
    assert await _published(client, uri, 0) == []
    assert client.messages[-1].message.startswith("Karyi review: 0 finding(s)")


async def test_nothing_to_review_and_bad_refs(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    project_with_change(ws_root)
    client = await lsp("neovim", ui=False)
    answer = await _review(client, {"paths": ["README.md"]})
    assert answer == {"change": "uncommitted changes", "findings": [], "dropped": 0, "merged": 0}
    assert client.messages[-1].message == (
        "Karyi review: nothing to review (no changed lines in the uncommitted changes)"
    )
    with pytest.raises(
        JsonRpcInvalidParams, match=r"karyi\.review: --base: no commit named 'nope'"
    ):
        await _review(client, {"base": "nope"})
    assert fake_llm.requests == []


async def test_vs_code_previews_the_fix(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    """A client with change annotations gets the fix as an edit that needs confirmation:
    VS Code shows it in its refactor preview before applying it."""
    project_with_change(ws_root)
    Reviewers(fake_llm, SCRIPT)
    client = await lsp("visual-studio-code", ui=False)
    uri = FakeEditor(client).open(ws_root / "src" / "calc.py")
    await _review(client)
    found = await _published(client, uri, 2)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=found[1].range,
            context=types.CodeActionContext(diagnostics=[found[1]]),
        )
    )
    fix = (actions or [None])[0]
    assert isinstance(fix, types.CodeAction) and fix.edit is not None
    assert fix.edit.change_annotations is not None
    (note,) = fix.edit.change_annotations.values()
    assert note.needs_confirmation and note.label == "Karyi review: Division by zero when b is 0"
    (change,) = fix.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert [e.new_text for e in change.edits] == [FIX + "\n"]
