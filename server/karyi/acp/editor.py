"""The client's file system, when it offers one: reads of unsaved buffers
(`fs/read_text_file`) and writes through the editor (`fs/write_text_file`).

Both sit behind the seams of workspace/editor.py: an `Editor` takes the writes the edit
engine made (computed, checked and journaled as for any front end), and a `BufferSource`
hands the editor's text of the files a call names to the document store before the call
runs. Every path has already passed the workspace's path policy; a client without these
capabilities leaves Karyi's own file access in place.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from acp.schema import ClientCapabilities, ReadTextFileResponse, WriteTextFileResponse

from karyi.workspace.documents import DocumentStore
from karyi.workspace.editor import WriteRecord

log = logging.getLogger(__name__)


class FileClient(Protocol):
    """The part of the SDK's client connection this module uses."""

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None
    ) -> ReadTextFileResponse:
        """`fs/read_text_file`."""
        ...

    async def write_text_file(
        self, session_id: str, path: str, content: str
    ) -> WriteTextFileResponse | None:
        """`fs/write_text_file`."""
        ...


class AcpEditor:
    """The Editor and BufferSource seams over an ACP client's `fs/*` methods."""

    def __init__(
        self, client: FileClient, docs: DocumentStore, *, reads: bool, writes: bool
    ) -> None:
        self.client = client
        self.docs = docs
        self.reads = reads
        self.writes = writes
        self.session_id = ""
        """Set once the session exists (the editor is wired before its first turn)."""
        self._version = 0

    def owns(self, path: Path) -> bool:
        """Every write goes through the client when it can write files."""
        return self.writes

    async def apply(self, writes: Sequence[WriteRecord], label: str) -> list[str]:
        """Send each write to the client, then keep the disk in step (commands and tests
        read the disk); one message per write the client refused."""
        problems = []
        for write in writes:
            try:
                await self.client.write_text_file(self.session_id, str(write.path), write.after)
            except Exception as exc:
                problems.append(
                    f"the editor could not write {write.display} ({exc}); nothing was written"
                )
                continue
            self.docs.save(write.path, write.after, display=write.display)
        return problems

    async def load(self, paths: Sequence[Path]) -> None:
        """The client's text of each file (its unsaved buffer, if any) becomes the
        document store's buffer when it differs from the disk."""
        if not self.reads:
            return
        for path in paths:
            if not path.is_file():
                continue
            try:
                answer = await self.client.read_text_file(self.session_id, str(path))
            except Exception as exc:
                log.debug("fs/read_text_file %s failed: %s", path, exc)
                continue
            on_disk = _disk_text(path)
            if answer.content == on_disk:
                self.docs.close_buffer(path)
            else:
                self._version += 1
                self.docs.open_buffer(path, answer.content, self._version)


def _disk_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def client_editor(
    client: FileClient | None, caps: ClientCapabilities, docs: DocumentStore
) -> AcpEditor | None:
    """The editor over the client's `fs/*` methods, when it offers any (None: the
    workspace is read and written directly)."""
    fs = caps.fs
    reads, writes = bool(fs and fs.read_text_file), bool(fs and fs.write_text_file)
    if not (reads or writes) or client is None:
        return None
    return AcpEditor(client, docs, reads=reads, writes=writes)
