"""`textDocument/codeAction`: the tasks offered for diagnostics and a selection."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.lsp.conftest import Start


async def test_code_actions(lsp: Start, ws_root: Path) -> None:
    client = await lsp("neovim", ui=False)
    uri = (ws_root / "src" / "main.py").as_uri()
    diag = types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 5)),
        message="undefined name",
        severity=types.DiagnosticSeverity.Error,
    )
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(0, 5)),
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    assert [a.title for a in actions or []] == [
        "Fix with Karyi",
        "Ask Karyi to explain this",
        "Ask Karyi to write tests for this",
    ]
    # the test client types the result as `Command | CodeAction` and may read our CodeAction
    # as a Command (stringifying its nested command): check what it carries
    assert "'command': 'karyi.fixDiagnostics'" in str(
        client.protocol._converter.unstructure(actions[0])
    )
