"""Text document sync: the editor's buffers become the document store's overlay.

pygls applies incremental changes to its own copy of each document; the store is given
the resulting text with the editor's version, so the agent reads exactly what the user
sees, unsaved changes included.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from karyi.lsp.editor_context import uri_path
from karyi.lsp.server import KaryiServer


def doc_path(uri: str) -> Path | None:
    """The file a document URI names (None for untitled and virtual documents)."""
    path = uri_path(uri)
    return Path(path).resolve() if path and not path.startswith(("untitled:", "vscode")) else None


def opened(ls: KaryiServer, params: types.DidOpenTextDocumentParams) -> None:
    """`textDocument/didOpen`: the buffer overlays the file (once the host is built)."""
    doc, path = params.text_document, doc_path(params.text_document.uri)
    if ls.host is not None and path is not None:
        ls.host.runtime.workspace.documents.open_buffer(path, doc.text, doc.version)


def changed(ls: KaryiServer, params: types.DidChangeTextDocumentParams) -> None:
    """`textDocument/didChange`: the store gets pygls's updated text and the new version."""
    path = doc_path(params.text_document.uri)
    if ls.host is None or path is None:
        return
    text = ls.workspace.get_text_document(params.text_document.uri).source
    docs = ls.host.runtime.workspace.documents
    if docs.buffer_version(path) is None:
        docs.open_buffer(path, text, params.text_document.version)
    else:
        docs.change_buffer(path, text, params.text_document.version)


def closed(ls: KaryiServer, params: types.DidCloseTextDocumentParams) -> None:
    """`textDocument/didClose`: the disk is the truth again."""
    path = doc_path(params.text_document.uri)
    if ls.host is not None and path is not None:
        ls.host.runtime.workspace.documents.close_buffer(path)
