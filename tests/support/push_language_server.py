"""A language server that only pushes diagnostics (no pull): every line saying `bad`
is an error, published with the document's version a moment after each change.

For testing Karyi's own language-server client (agent/diagnostics/lsp_clients.py) against a server
without `textDocument/diagnostic`. Run: `python push_language_server.py`.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("push-only", "1")


async def publish(uri: str, version: int, text: str) -> None:
    await asyncio.sleep(0.05)  # like a real server: after the change, not in its answer
    found = [
        types.Diagnostic(
            range=types.Range(types.Position(i, 0), types.Position(i, len(line))),
            message=f"line {i + 1} is bad",
            severity=types.DiagnosticSeverity.Error,
            source="push-only",
            code="P1",
        )
        for i, line in enumerate(text.splitlines())
        if "bad" in line
    ]
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
    )


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    await publish(doc.uri, doc.version, doc.text)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(params: types.DidChangeTextDocumentParams) -> None:
    doc = server.workspace.get_text_document(params.text_document.uri)
    await publish(doc.uri, params.text_document.version, doc.source)


if __name__ == "__main__":
    server.start_io()
