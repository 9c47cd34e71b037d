"""Edits to files open in the editor: the buffer and the disk stay in agreement, and
the user's unsaved text is never lost (docs/editors.md#edits).

Which writes go through `workspace/applyEdit` depends on the client:
- Karyi's own UI (`initializationOptions.karyi.ui`, the VS Code extension): every open
  document. The server then writes the same text to disk, and the extension saves the
  buffers that equal the disk.
- Any other client: only a buffer with unsaved changes. Its edit is applied to the
  buffer (rebased onto the user's text) and the disk is left alone until the user
  saves: writing behind the editor's back would make it warn or lose the user's text. A
  clean buffer is not sent an edit: the file is written and the editor reloads it as
  for any change on disk (Neovim's 'autoread', Emacs' auto-revert), so the buffer is not
  left modified and the next save does not warn.

For each write sent: the change is computed against the buffer the tool read; if the
user has typed since, it is rebased onto their text (a three-way merge) or refused. The
editor applies it as one `TextDocumentEdit`, versioned and with a "Karyi" change
annotation when the client declares `workspaceEdit.documentChanges` (and
`changeAnnotationSupport`), else as plain `changes`. A client that never answers, or
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
        """The writes the editor applies (when it can apply edits): every open document
        for Karyi's UI, an open document with unsaved changes for any other client."""
        if not self.supported() or self._docs.buffer_version(path) is None:
            return False
        return self.server.ui or self._docs.unsaved(path)

    def _settle(self, write: WriteRecord, text: str) -> None:
        """The buffer now holds `text`: Karyi's UI gets it on disk too; another client's
        disk waits for the user's save."""
        if self.server.ui:
            self._docs.save(write.path, text, display=write.display)
        else:
            self._docs.buffers.applied(write.path, text)

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
                self._settle(write, target)
                return None
            applied = await self._send(write.path, version, current, target, label)
            if applied:
                self._settle(write, target)
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
