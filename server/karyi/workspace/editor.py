"""Writes as records, and the seam through which an editor can own open files.

Every write a tool makes is recorded (what the file was, what it becomes), so the front
end can show it and the user's own final text can replace the tool's. A front end with
an editor (the language server) supplies an `Editor`: writes to files it has open are
deferred and handed to it after the tool ran, so the change reaches the user's buffer
as an undoable edit instead of being written under it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from karyi.workspace.diffs import FileDiff, FileDiffJson, diff_texts
from karyi.workspace.snapshots import Snapshot


class FileProposalJson(FileDiffJson):
    """A file's proposed change for an editor's inline preview: its `uri` and the
    editor's `version` of it, its text before (`original`) and after (`proposed`)."""

    uri: str
    version: int | None
    original: str
    proposed: str


@dataclass(frozen=True)
class PlannedWrite:
    """A whole-file change a call would make: the file's text before and after."""

    path: Path
    display: str
    before: str | None
    after: str
    version: int | None = None  # the editor's version of the buffer `before` came from

    def diff(self) -> FileDiff:
        """The change as LSP edits, hunks and a unified diff."""
        return diff_texts(self.before, self.after, path=self.display)

    def to_json(self) -> FileProposalJson:
        """The form edit previews use (see docs/protocol.md, "Permissions and edit previews")."""
        return {
            "uri": self.path.as_uri(),
            "version": self.version,
            "original": self.before or "",
            "proposed": self.after,
            **self.diff().to_json(),
        }


@dataclass
class WriteRecord:
    """A write a call made (or handed to the editor: `deferred`)."""

    path: Path
    display: str
    base: Snapshot | None
    after: str
    make_parents: bool = False
    deferred: bool = False
    proposed: str | None = None
    """The tool's own text when the user's answer replaced it (`after` is then the user's
    text rebased onto the file); None when the tool's text was written. Kept so the model
    can be told how what was written differs from what it proposed."""

    @property
    def before(self) -> str | None:
        """The text the write was computed from (None: a new file)."""
        return self.base.text if self.base is not None else None

    def planned(self) -> PlannedWrite:
        """The record as a preview-shaped change."""
        return PlannedWrite(self.path, self.display, self.before, self.after)


class Editor(Protocol):
    """An editor that owns some files (those open in it)."""

    def owns(self, path: Path) -> bool:
        """True when writes to `path` must go through the editor."""
        ...

    async def apply(self, writes: Sequence[WriteRecord], label: str) -> list[str]:
        """Apply deferred writes; one message per write that could not be applied.

        A write rebased onto what the user typed meanwhile gets the text applied as its
        `after`, so what the model is told is what the buffer holds.
        """
        ...


@runtime_checkable
class BufferSource(Protocol):
    """An editor whose unsaved text the agent must read (an ACP client with
    `fs/read_text_file`): before a call runs, the files it names are fetched from the
    editor into the document store's buffers, so the tool reads what the user sees."""

    async def load(self, paths: Sequence[Path]) -> None:
        """Fetch the editor's text of `paths` into the document store (a file the editor
        cannot give is left to the disk)."""
        ...
