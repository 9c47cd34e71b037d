"""Text document sync: the editor's buffers become the document store's overlay.

pygls applies incremental changes to its own copy of each document; the store is given
the resulting text with the editor's version, so the agent reads exactly what the user
sees, unsaved changes included.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from lsprotocol import types

from karyi.lsp.editor_context import uri_path
from karyi.lsp.errors import RequestFailed
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
    _moved(ls)


def changed(ls: KaryiServer, params: types.DidChangeTextDocumentParams) -> None:
    """`textDocument/didChange`: the store gets pygls's updated text and the new version."""
    path = doc_path(params.text_document.uri)
    if ls.host is None or path is None:
        return
    text = ls.workspace.get_text_document(params.text_document.uri).source
    docs = ls.host.runtime.workspace.documents
    uri = params.text_document.uri
    before = docs.read(path, str(path)).text if uri in ls.review_findings else None
    if docs.buffer_version(path) is None:
        docs.open_buffer(path, text, params.text_document.version)
    else:
        docs.change_buffer(path, text, params.text_document.version)
    if before is not None:  # a code review's findings follow the edit
        from karyi.lsp.code_review import follow_edits

        follow_edits(ls, uri, before, text)
    _moved(ls)


def closed(ls: KaryiServer, params: types.DidCloseTextDocumentParams) -> None:
    """`textDocument/didClose`: the disk is the truth again."""
    path = doc_path(params.text_document.uri)
    if ls.host is not None and path is not None:
        ls.host.runtime.workspace.documents.close_buffer(path)
    _moved(ls)


def _moved(ls: KaryiServer) -> None:
    ls.buffers_moved.set()
    ls.buffers_moved = asyncio.Event()


SEEN_PATIENCE = 10.0
"""Seconds a request waits for the editor's changes it says it made before it."""


async def until_seen(ls: KaryiServer, versions: Iterable[tuple[str, int]]) -> None:
    """Wait until the store holds each document at least at the version the client named
    (its didChange may come after the request that names it); a closed one is the disk's.
    Raises RequestFailed (nothing done) when a version never arrives."""
    docs = ls.require_host().runtime.workspace.documents
    wanted = [(doc_path(uri), version) for uri, version in versions]

    def behind() -> list[Path]:
        out = []
        for path, version in wanted:
            held = docs.buffer_version(path) if path is not None else None
            if path is not None and held is not None and held < version:
                out.append(path)
        return out

    try:
        async with asyncio.timeout(SEEN_PATIENCE):
            while behind():
                await ls.buffers_moved.wait()
    except TimeoutError:
        names = ", ".join(str(p) for p in behind())
        raise RequestFailed(
            f"the editor's latest text of {names} never reached Karyi; nothing was done: "
            "answer again"
        ) from None
