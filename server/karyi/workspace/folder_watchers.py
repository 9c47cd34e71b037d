"""One watcher per workspace folder, started and stopped together.

The root is always watched; a folder outside it (a multi-root workspace) gets a watcher
of its own, and a folder inside it is already covered. Every watcher reports to the same
`on_change` and, in on-demand mode, checks the same `poll`.
"""

from __future__ import annotations

from pathlib import Path

from karyi.workspace.ignore import GitIgnore
from karyi.workspace.watcher import Listener, Poll, Watcher


class FolderWatchers:
    """The root's watcher and one per other folder."""

    def __init__(self, root: Path, ignore: GitIgnore, on_change: Listener, poll: Poll) -> None:
        self.root = root
        self.ignore = ignore
        self.on_change = on_change
        self.poll = poll
        self.root_watcher = Watcher(root, ignore, on_change, poll=poll)
        self._others: dict[Path, Watcher] = {}
        self._on = False

    def _wanted(self, folders: tuple[Path, ...]) -> set[Path]:
        return {f for f in folders if f != self.root and self.root not in f.parents}

    def add(self, folders: tuple[Path, ...]) -> None:
        """Make (not start) a watcher for each of `folders` that needs one."""
        for new in self._wanted(folders) - set(self._others):
            self._others[new] = Watcher(new, self.ignore, self.on_change, poll=self.poll)

    async def set_roots(self, folders: tuple[Path, ...]) -> None:
        """Watch exactly these folders (besides the root), started at once if on."""
        wanted = self._wanted(folders)
        for gone in set(self._others) - wanted:
            await self._others.pop(gone).stop()
        self.add(folders)
        if self._on:
            for watcher in self._others.values():
                await watcher.start()

    @property
    def all(self) -> list[Watcher]:
        """The watcher of the root, then one per other folder."""
        return [self.root_watcher, *self._others.values()]

    async def start(self) -> None:
        """Start every watcher (idempotent; returns before the watches are set up)."""
        self._on = True
        for watcher in self.all:
            await watcher.start()

    async def stop(self) -> None:
        """Stop every watcher."""
        self._on = False
        for watcher in self.all:
            await watcher.stop()

    @property
    def notice(self) -> str | None:
        """Why file watching is degraded (a watcher's on-demand mode), or None."""
        return next((w.notice for w in self.all if w.notice), None)
