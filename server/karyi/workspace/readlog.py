"""What each session has read: the version of every file the model has seen.

A version is the digest of the content the model was shown. When the current version
differs, the model's picture of the file is stale: a whole-file write against it is
refused, a find/replace is told, and the next turn can announce the change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple


class Change(NamedTuple):
    """A file that changed since a session read it, and how: (path, what changed)."""

    path: Path
    what: str  # "modified on disk", "modified in the editor", "deleted"


@dataclass
class _SessionReads:
    versions: dict[Path, str] = field(default_factory=dict)
    announced: dict[Path, str | None] = field(default_factory=dict)


class ReadLog:
    """Per session: path -> the version last read (or written) by that session."""

    def __init__(self) -> None:
        self._sessions: dict[str, _SessionReads] = {}

    def record(self, session_id: str, path: Path, version: str) -> None:
        """The session has now seen `version` of `path`."""
        reads = self._sessions.setdefault(session_id, _SessionReads())
        reads.versions[path] = version
        reads.announced.pop(path, None)

    def last(self, session_id: str, path: Path) -> str | None:
        """The version of `path` the session last saw, or None if it never read it."""
        reads = self._sessions.get(session_id)
        return reads.versions.get(path) if reads else None

    def paths(self, session_id: str) -> list[tuple[Path, str]]:
        """Every (path, version) the session has read, in reading order."""
        reads = self._sessions.get(session_id)
        return list(reads.versions.items()) if reads else []

    def announce(self, session_id: str, path: Path, current: str | None) -> bool:
        """True the first time a given current version is announced to the session."""
        reads = self._sessions.setdefault(session_id, _SessionReads())
        if path in reads.announced and reads.announced[path] == current:
            return False
        reads.announced[path] = current
        return True

    def forget_session(self, session_id: str) -> None:
        """Drop everything recorded for a session that ended."""
        self._sessions.pop(session_id, None)

    def forget_path(self, session_id: str, path: Path) -> None:
        """Drop `path` for one session (that session deleted or moved it itself)."""
        reads = self._sessions.get(session_id)
        if reads is not None:
            reads.versions.pop(path, None)
            reads.announced.pop(path, None)
