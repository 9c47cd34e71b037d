"""A watchfiles watcher over the workspace that tells the document store what changed.

The store never depends on it for correctness (every read validates the cache with a
stat); the watcher drops stale entries early, frees their memory, and lets listeners
(the agent's "X changed since you read it" notice, the LSP layer) hear of changes
made by other programs. Paths git ignores, `.git/` and `node_modules/` are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from watchfiles import Change, awatch

from karyi.workspace.ignore import GitIgnore

log = logging.getLogger(__name__)

SKIPPED_DIRS = frozenset({".git", "node_modules"})
DEBOUNCE_MS = 50
STEP_MS = 5

Listener = Callable[[set[Path]], None]


class Watcher:
    """Watches one directory tree in a task; `start`/`stop` from the event loop."""

    def __init__(self, root: Path, ignore: GitIgnore, on_change: Listener) -> None:
        self.root = root
        self.ignore = ignore
        self.on_change = on_change
        self.batches = 0
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None

    @property
    def running(self) -> bool:
        """True while the watch task is alive."""
        return self._task is not None and not self._task.done()

    def accepts(self, change: Change, raw: str) -> bool:
        """watchfiles' filter: False for skipped directories and git-ignored paths."""
        path = Path(raw)
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return True
        if any(part in SKIPPED_DIRS for part in rel.parts):
            return False
        is_dir = None if change != Change.deleted else False
        return not self.ignore.ignored(path, is_dir)

    async def start(self) -> None:
        """Start watching (idempotent)."""
        if self.running:
            return
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._run(self._stop), name="karyi-watcher")

    async def stop(self) -> None:
        """Stop watching and wait for the task to end."""
        if self._task is None or self._stop is None:
            return
        self._stop.set()
        task, self._task = self._task, None
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _run(self, stop: asyncio.Event) -> None:
        try:
            async for changes in awatch(
                self.root,
                watch_filter=self.accepts,
                stop_event=stop,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                recursive=True,
                ignore_permission_denied=True,
            ):
                self.batches += 1
                self.on_change({Path(raw) for _change, raw in changes})
        except asyncio.CancelledError:
            raise
        except Exception:  # the tree vanished, too many watches: reads stay correct
            log.exception("workspace watcher stopped")
