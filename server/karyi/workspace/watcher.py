"""A watcher over the workspace that tells the document store what changed.

The store never depends on it for correctness (every read validates the cache with a
stat); the watcher drops stale entries early, frees their memory, and lets listeners
(the agent's "X changed since you read it" notice, the LSP layer) hear of changes
made by other programs. Paths git ignores, `.git/` and `node_modules/` are skipped.

Native mode: one recursive watch (inotify, FSEvents, ReadDirectoryChangesW through
watchfiles' Rust backend), set up in a thread `SETUP_DELAY` seconds after `start`: on a
tree of tens of thousands of directories the set-up walks every one of them (0.7 s of
CPU for 20,000), and neither the event loop nor the editor's first requests (a chat's
first turn) should wait for or compete with it; until then reads check the disk as
always.
When the platform refuses (the inotify watch limit, too many inotify instances, any
other error), the watcher degrades to on-demand mode instead of failing: reads still
check every file on disk, and every `POLL_SECONDS` the files the store holds are
checked with a stat, so listeners still hear of changes to the files that matter;
`notice` says why, once, for the user (docs/architecture.md#large-workspaces).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from watchfiles import Change
from watchfiles._rust_notify import RustNotify

from karyi.workspace.ignore import GitIgnore

log = logging.getLogger(__name__)

SKIPPED_DIRS = frozenset({".git", "node_modules"})
DEBOUNCE_MS = 50
STEP_MS = 5
TIMEOUT_MS = 1000
"""How often the watch thread returns to see whether it should stop."""
SETUP_DELAY = 3.0
"""Seconds between `start` and setting up the native watch."""
POLL_SECONDS = 1.0
"""How often the on-demand mode checks the files the store holds."""
LIMIT_ERRNOS = frozenset({errno.ENOSPC, errno.EMFILE})

Listener = Callable[[set[Path]], None]
Poll = Callable[[], set[Path]]
"""The paths among those the store holds that changed since it last looked."""


class Backend(Protocol):
    """What the watcher needs of `RustNotify` (a test may give a failing one)."""

    def watch(
        self, debounce_ms: int, step_ms: int, timeout_ms: int, stop_event: threading.Event
    ) -> set[tuple[int, str]] | str: ...

    def close(self) -> None: ...


def native_backend(root: Path) -> Backend:
    """A recursive native watch over `root` (blocks while it is set up)."""
    return RustNotify([str(root)], False, False, 300, True, True)


class Watcher:
    """Watches one directory tree in a task; `start`/`stop` from the event loop."""

    def __init__(
        self,
        root: Path,
        ignore: GitIgnore,
        on_change: Listener,
        *,
        poll: Poll | None = None,
        backend: Callable[[Path], Backend] = native_backend,
    ) -> None:
        self.root = root
        self.ignore = ignore
        self.on_change = on_change
        self.poll = poll
        self.backend = backend
        self.batches = 0
        self.mode = "off"
        """"off", "starting", "native" or "on-demand"."""
        self.notice: str | None = None
        """Why file watching is degraded, for the user; None while all is well."""
        self.poll_seconds = POLL_SECONDS
        self.setup_delay = SETUP_DELAY
        self.degraded = asyncio.Event()
        """Set when the watcher falls back to on-demand mode."""
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stop: threading.Event | None = None
        self._stopped: asyncio.Event | None = None

    @property
    def running(self) -> bool:
        """True while the watch task is alive."""
        return self._task is not None and not self._task.done()

    def accepts(self, change: Change, raw: str) -> bool:
        """False for skipped directories and git-ignored paths."""
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
        """Start watching (idempotent); returns at once, the watch is set up meanwhile."""
        if self.running:
            return
        self._stop = threading.Event()
        self._stopped = asyncio.Event()
        self._ready = asyncio.Event()
        self.mode = "starting"
        self._task = asyncio.create_task(self._run(self._stop, self._stopped), name="karyi-watcher")

    async def wait_ready(self) -> str:
        """Wait until the watch is set up (or degraded); returns the mode."""
        await self._ready.wait()
        return self.mode

    async def stop(self) -> None:
        """Stop watching and wait for the task to end."""
        if self._task is None or self._stop is None or self._stopped is None:
            return
        self._stop.set()
        self._stopped.set()
        self._ready.set()
        task, self._task = self._task, None
        with contextlib.suppress(asyncio.CancelledError):
            await task
        self.mode = "off"

    async def _run(self, stop: threading.Event, stopped: asyncio.Event) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopped.wait(), self.setup_delay)
        if stopped.is_set():
            return
        try:
            backend = await asyncio.to_thread(self.backend, self.root)
        except Exception as exc:
            await self._on_demand(_why(exc), stopped)
            return
        try:
            self.mode = "native"
            self._ready.set()
            while not stop.is_set():
                raw = await asyncio.to_thread(backend.watch, DEBOUNCE_MS, STEP_MS, TIMEOUT_MS, stop)
                if isinstance(raw, str):
                    if raw == "stop":
                        return
                    continue  # a timeout: look at `stop` again
                paths = {Path(p) for c, p in raw if self.accepts(Change(c), p)}
                if paths:
                    self.batches += 1
                    self.on_change(paths)
        except asyncio.CancelledError:
            stop.set()
            raise
        except Exception as exc:  # e.g. new directories past the watch limit
            backend.close()
            await self._on_demand(_why(exc), stopped)
            return
        backend.close()

    async def _on_demand(self, why: str, stopped: asyncio.Event) -> None:
        """Degraded mode: tell why once, then check the store's files every few seconds."""
        self.mode = "on-demand"
        self.notice = (
            f"File watching is off for {self.root} ({why}); Karyi still checks each file "
            f"on disk when it reads it, and the files it holds every {self.poll_seconds:g} s."
        )
        log.warning("%s", self.notice)
        self._ready.set()
        self.degraded.set()
        while not stopped.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopped.wait(), self.poll_seconds)
            if self.poll is not None and not stopped.is_set():
                changed = self.poll()
                if changed:
                    self.batches += 1
                    self.on_change(changed)


def _why(exc: BaseException) -> str:
    text = str(exc).split(" about ")[0].strip() or type(exc).__name__
    if "limit" in text.lower() or getattr(exc, "errno", None) in LIMIT_ERRNOS:
        return (
            f"{text}: the system's limit on watched directories is reached; raise "
            "fs.inotify.max_user_watches or open a smaller folder"
        )
    return text
