"""Karyi's own diagnostics of a document, for clients without Karyi's UI
(docs/editors.md#diagnostics).

Karyi starts language servers of its own to check its edits (ruff for Python by
default, `diagnostics.servers`; agent/diagnostics/lsp_clients.py). What they report for
a document is served to the editor through the `textDocument/diagnostic` pull (so
Neovim 0.11, which sends each server only its own diagnostics in a code action's
context, has some to send) and offered as "Fix with Karyi" whatever the context holds.
The pull capability is declared by features.py.
"""

from __future__ import annotations

from lsprotocol import types

from karyi.lsp.documents import doc_path
from karyi.lsp.server import KaryiServer


async def own_diagnostics(ls: KaryiServer, uri: str) -> list[types.Diagnostic]:
    """What Karyi's own language servers report for the document now (its open buffer's
    text, else the file); none when they are switched off, the editor gives its own
    (Karyi's UI), or no server covers the file."""
    await ls.ready()
    path = doc_path(uri)
    if ls.host is None or path is None:
        return []
    runtime = ls.host.runtime
    source = runtime.problems()
    if source is None or source.live or not source.covers(path):
        return []
    try:
        text = runtime.workspace.documents.read(path, str(path)).text
        found = await source.problems({path: text})
    except Exception as exc:  # a server that fails must not fail the editor's request
        ls.log(f"karyi: diagnostics of {path.name} failed: {exc}", types.MessageType.Warning)
        return []
    return [
        types.Diagnostic(
            range=types.Range(
                types.Position(p.line, p.character), types.Position(p.line, p.character + 1)
            ),
            message=p.message,
            severity=types.DiagnosticSeverity(p.severity) if 1 <= p.severity <= 4 else None,
            source=p.source or None,
            code=p.code or None,
        )
        for p in found.get(path, [])
    ]


async def pull(
    ls: KaryiServer, params: types.DocumentDiagnosticParams
) -> types.RelatedFullDocumentDiagnosticReport:
    """`textDocument/diagnostic`: the document's diagnostics from Karyi's own servers."""
    items = await own_diagnostics(ls, params.text_document.uri)
    return types.RelatedFullDocumentDiagnosticReport(items=items)
