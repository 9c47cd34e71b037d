"""Edits to files open in the editor go through `workspace/applyEdit`, never under it.

For each write the tool made to an open document: the change is computed against the
buffer the tool read; if the user has typed since, it is rebased onto their text (a
three-way merge) or refused. The editor applies it as one versioned `TextDocumentEdit`
with a change annotation (so its undo takes it back); then the server writes the same
text to disk, so the next command or test sees it. A client that never answers, or
refuses twice, gets the write refused with a message — nothing is written.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from karyi.lsp.server import KaryiServer
from karyi.workspace.diffs import diff_texts
from karyi.workspace.editor import WriteRecord
from karyi.workspace.merge import rebase

if TYPE_CHECKING:
    from karyi.workspace.documents import DocumentStore

APPLY_TIMEOUT = 60.0
ATTEMPTS = 3


def _range(r: Any) -> types.Range:
    data = r.to_json() if hasattr(r, "to_json") else r
    assert isinstance(data, dict)
    start, end = data["start"], data["end"]
    return types.Range(
        types.Position(start["line"], start["character"]),
        types.Position(end["line"], end["character"]),
    )


def _workspace_edit(
    path: Path,
    version: int,
    diff_edits: Sequence[Any],
    label: str,
    versioned: bool,
    annotated: bool,
) -> types.WorkspaceEdit:
    """The edit in the richest form the client accepts: versioned and annotated, or not."""
    edits: list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit] = [
        types.AnnotatedTextEdit(range=_range(e.range), new_text=e.new_text, annotation_id="karyi")
        if annotated
        else types.TextEdit(range=_range(e.range), new_text=e.new_text)
        for e in diff_edits
    ]
    if not versioned:  # an older client: unversioned; the rebase already used its latest text
        plain_edits = [
            types.TextEdit(range=_range(e.range), new_text=e.new_text) for e in diff_edits
        ]
        return types.WorkspaceEdit(changes={path.as_uri(): plain_edits})
    identifier = types.OptionalVersionedTextDocumentIdentifier(uri=path.as_uri(), version=version)
    return types.WorkspaceEdit(
        document_changes=[types.TextDocumentEdit(text_document=identifier, edits=edits)],
        change_annotations={
            "karyi": types.ChangeAnnotation(
                label="Karyi", description=label, needs_confirmation=False
            )
        }
        if annotated
        else None,
    )


class LspEditor:
    """The Editor seam (workspace/editor.py) for a language-server client."""

    def __init__(self, server: KaryiServer) -> None:
        self.server = server

    @property
    def _docs(self) -> DocumentStore:
        return self.server.require_host().runtime.workspace.documents

    def supported(self) -> bool:
        """The client applies workspace edits."""
        ws = self.server.client_capabilities.workspace
        return bool(ws and ws.apply_edit)

    def _edit_caps(self) -> tuple[bool, bool]:
        """(versioned document changes, change annotations) the client accepts."""
        ws = self.server.client_capabilities.workspace
        caps = ws.workspace_edit if ws is not None else None
        versioned = bool(caps and caps.document_changes)
        return versioned, bool(versioned and caps and caps.change_annotation_support)

    def owns(self, path: Path) -> bool:
        """Open documents belong to the editor (when it can apply edits)."""
        return self.supported() and self._docs.buffer_version(path) is not None

    async def apply(self, writes: Sequence[WriteRecord], label: str) -> list[str]:
        """Apply each write through the editor, then to disk; one message per failure."""
        problems = []
        for write in writes:
            problem = await self._one(write, label)
            if problem:
                problems.append(problem)
        return problems

    async def _one(self, write: WriteRecord, label: str) -> str | None:
        base = write.before or ""
        for _ in range(ATTEMPTS):
            version = self._docs.buffer_version(write.path)
            if version is None:  # closed meanwhile: the disk is the truth again
                self._docs.save(write.path, write.after, display=write.display)
                return None
            current = self._docs.read(write.path, write.display).text
            target = rebase(base, write.after, current)
            if target is None:
                return (
                    f"{write.display} was changed in the editor while this edit was being "
                    "applied, and the changes overlap; nothing was written: read the file "
                    "again and redo the edit"
                )
            if target == current:  # already there (applied before a timed-out answer)
                self._docs.save(write.path, target, display=write.display)
                return None
            applied = await self._send(write.path, version, current, target, label)
            if applied:
                self._docs.save(write.path, target, display=write.display)
                write.after = target  # what the buffer holds now, for what the model is told
                return None
        return (
            f"the editor did not apply the edit to {write.display} (it kept changing or "
            "refused); nothing was written"
        )

    async def _send(self, path: Path, version: int, current: str, target: str, label: str) -> bool:
        diff = diff_texts(current, target, path=str(path))
        workspace_edit = _workspace_edit(path, version, diff.edits, label, *self._edit_caps())
        params = types.ApplyWorkspaceEditParams(label=f"Karyi: {label}", edit=workspace_edit)
        try:
            result = await asyncio.wait_for(
                self.server.workspace_apply_edit_async(params), APPLY_TIMEOUT
            )
        except TimeoutError:
            return False
        except Exception as exc:
            self.server.log(f"karyi: workspace/applyEdit failed: {exc}", types.MessageType.Warning)
            return False
        return bool(result and result.applied)
