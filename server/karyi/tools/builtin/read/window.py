"""Reading one file for the model: the one implementation behind every read tool.

The text comes through the document store (an unsaved editor buffer is what the model
sees) and the read is recorded, so a later whole-file write against a file that
changed since is refused. `FileRead.window` cuts the lines a tool shows; each tool
words its own notes about what was cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from karyi.tools.builtin.document_io import file_keys, read_text
from karyi.tools.context import ToolContext
from karyi.workspace.files import DEFAULT_LINE_LIMIT, TextWindow, text_window
from karyi.workspace.snapshots import Snapshot


@dataclass(frozen=True)
class FileRead:
    """A file as read for the model: its path, its name in messages, its text."""

    path: Path
    shown: str
    snap: Snapshot

    def window(self, offset: int = 0, limit: int = DEFAULT_LINE_LIMIT) -> TextWindow:
        """Lines from `offset` (0-based), at most `limit`, with over-long lines cut."""
        s = self.snap
        return text_window(
            s.text, self.shown, size=s.size, lossy=s.lossy, offset=offset, limit=limit
        )


def read_file(ctx: ToolContext, path: Path, shown: str) -> FileRead:
    """The file's current text (open buffer first), recorded as read by the session."""
    return FileRead(path, shown, read_text(ctx, path, shown))


def read_resources(ctx: ToolContext, raw: object, param: str) -> frozenset[str]:
    """The file a call reads: it waits for an earlier call in the reply that edits it."""
    return file_keys([ctx.workspace.resolve(raw, param=param)])
