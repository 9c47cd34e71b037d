"""The editor's open buffers: the text the user sees, unsaved changes included.

The LSP layer feeds them (didOpen, didChange, didClose); the document store reads a
buffer before the disk, so a tool never works on an older text than the user's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from karyi.workspace.positions import splice_range
from karyi.workspace.snapshots import Snapshot

Changes = Sequence[tuple[tuple[int, int, int, int] | None, str]]
"""LSP-style changes: ((start line, start char, end line, end char), text) with UTF-16
columns, or (None, text) for the whole document, applied in order."""


@dataclass
class Buffer:
    """One open document: its text, the editor's version, and its snapshot once made."""

    text: str
    version: int
    snapshot: Snapshot | None = None


class EditorBuffers:
    """The open buffers by path."""

    def __init__(self) -> None:
        self._open: dict[Path, Buffer] = {}

    def __contains__(self, path: object) -> bool:
        return path in self._open

    def get(self, path: Path) -> Buffer | None:
        """The buffer of `path`, None when it is not open."""
        return self._open.get(path)

    def texts(self) -> dict[Path, str]:
        """Every open buffer's text, by path (what a language server must be shown)."""
        return {path: buf.text for path, buf in self._open.items()}

    def open(self, path: Path, text: str, version: int) -> None:
        """The editor opened `path` with `text` (didOpen)."""
        self._open[path] = Buffer(text, version)

    def change(self, path: Path, text: str | Changes, version: int) -> None:
        """The editor changed `path` (didChange): the full text, or LSP-style changes."""
        buf = self._open.get(path)
        if buf is None:
            raise KeyError(f"{path} is not open")
        if isinstance(text, str):
            buf.text = text
        else:
            for rng, new in text:
                buf.text = new if rng is None else splice_range(buf.text, rng, new)
        buf.version = version
        buf.snapshot = None

    def applied(self, path: Path, text: str) -> None:
        """The editor applied an edit that makes its buffer `text`; its didChange (with
        the new version) may come later, and reads until then must see the edit."""
        buf = self._open.get(path)
        if buf is not None:
            buf.text, buf.snapshot = text, None

    def close(self, path: Path) -> None:
        """The editor closed `path` (didClose): the disk is the truth again."""
        self._open.pop(path, None)
