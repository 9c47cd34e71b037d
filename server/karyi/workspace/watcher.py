"""A watcher over the workspace that tells the document store what changed.

The store never depends on it for correctness (every read validates the cache with a
stat); the watcher drops stale entries early, frees their memory, and lets listeners
(the agent's "X changed since you read it" notice, the LSP layer) hear of changes
made by other programs. Paths git ignores, `.git/` and `node_modules/` are skipped.

Native mode, through watchfiles' public `watch` generator. Where the platform watches a tree
natively (FSEvents on macOS, ReadDirectoryChangesW on Windows), one recursive watch on
the root. Elsewhere (inotify, one watch per directory, a limited number), a watch on
each directory a listing would enter: ripgrep lists the files, so `.git/`,
`node_modules/` and git-ignored build output hold no watch and never count against the
limit; a new directory (and what is below it) joins the set. A directory that held no
file when the set was made has no watch (a file created there is still read fresh, the
watcher just does not announce it). It is set up
`SETUP_DELAY` seconds after `start`, in a thread: on a tree of tens of thousands of
directories that takes a second of CPU, and neither the event loop nor the editor's
first requests (a chat's first turn) should wait for or compete with it; until then
reads check the disk as always.
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
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from karyi.workspace.ignore import GitIgnore

if TYPE_CHECKING:
    from watchfiles import Change

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
RECURSIVE = sys.platform in ("darwin", "win32")
"""The platform watches a whole tree natively."""

Listener = Callable[[set[Path]], None]
Poll = Callable[[], set[Path]]
"""The paths among those the store holds that changed since it last looked."""


class Backend(Protocol):
    """What the watcher needs of a native watch (a test may give a failing one)."""

    def watch(
        self, debounce_ms: int, step_ms: int, timeout_ms: int, stop_event: threading.Event
    ) -> set[tuple[int, str]] | str: ...

    def close(self) -> None: ...


class NativeWatch:
    """watchfiles' `watch` over given paths, set up when made: it waits for the first
    batch (or `TIMEOUT_MS` without one), so the watches exist before `wait_ready`
    returns and a change right after it is never missed."""

    def __init__(self, paths: list[str], recursive: bool, stop: threading.Event) -> None:
        from watchfiles import watch  # with the first watch, not with every workspace

        self._changes = watch(
            *paths,
            watch_filter=None,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            stop_event=stop,
            rust_timeout=TIMEOUT_MS,
            yield_on_timeout=True,
            debug=False,
            raise_interrupt=False,
            force_polling=False,
            recursive=recursive,
            ignore_permission_denied=True,
        )
        self._first: set[tuple[int, str]] | str = self._next()

    def _next(self) -> set[tuple[int, str]] | str:
        try:
            batch = next(self._changes)
        except StopIteration:
            return "stop"
        return {(int(change), path) for change, path in batch} or "timeout"

    def watch(
        self, debounce_ms: int, step_ms: int, timeout_ms: int, stop_event: threading.Event
    ) -> set[tuple[int, str]] | str:
        """The next batch of changes, "timeout" when none came, "stop" once stopped."""
        first, self._first = self._first, "timeout"
        return first if first != "timeout" else self._next()

    def close(self) -> None:
        """Remove the watches."""
        self._changes.close()


def native_backend(root: Path, directories: list[Path], stop: threading.Event) -> Backend:
    """Native watches on `directories`, each without its subdirectories; with none,
    one recursive watch on `root` (blocks while they are set up)."""
    if not directories:
        return NativeWatch([str(root)], True, stop)
    return NativeWatch([str(d) for d in directories], False, stop)


async def watched_directories(root: Path) -> list[Path]:
    """The root and every directory above a file a listing shows (what an agent can see
    change); ignored trees hold none. Only directories are kept, never the file list."""
    dirs = {""}

    def note(rel: str) -> bool:
        d = rel.rpartition("/")[0]
        while d not in dirs:
            dirs.add(d)
            d = d.rpartition("/")[0]
        return False

    from karyi.workspace.ripgrep import find_files  # the watcher's first listing

    await find_files(root, keep=note, ordered=False)
    return [root / d if d else root for d in sorted(dirs)]


class Watcher:
    """Watches one directory tree in a task; `start`/`stop` from the event loop."""

    def __init__(
        self,
        root: Path,
        ignore: GitIgnore,
        on_change: Listener,
        *,
        poll: Poll | None = None,
        backend: Callable[[Path, list[Path], threading.Event], Backend] = native_backend,
    ) -> None:
        self.root = root
        self.ignore = ignore
        self.on_change = on_change
        self.poll = poll
        self.backend = backend
        self.batches = 0
        self.watched = 0
        """Directories the native watch covers."""
        self.mode = "off"
        """"off", "starting", "native" or "on-demand"."""
        self.notice: str | None = None
        """Why file watching is degraded, for the user; None while all is well."""
        self.poll_seconds = POLL_SECONDS
        self.setup_delay = SETUP_DELAY
        self.recursive = RECURSIVE
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
        from watchfiles import Change  # loaded by the first watch already

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
        directories: list[Path] = []
        while not stopped.is_set():
            try:
                if not (self.recursive or directories):
                    directories = await watched_directories(self.root)
                backend = await asyncio.to_thread(self.backend, self.root, directories, stop)
            except Exception as exc:
                await self._on_demand(_why(exc), stopped)
                return
            self.watched = len(directories) or 1
            self.mode = "native"
            self._ready.set()
            try:
                new = await self._watch(backend, stop)
            except asyncio.CancelledError:
                stop.set()
                raise
            except Exception as exc:  # e.g. watches past the limit
                backend.close()
                await self._on_demand(_why(exc), stopped)
                return
            backend.close()
            if not new:
                return
            below = await asyncio.to_thread(_subdirectories, new, self.accepts)
            directories = sorted({*directories, *below})

    async def _watch(self, backend: Backend, stop: threading.Event) -> list[Path]:
        """Pass changes on until stopped ([]) or new directories need a watch (them)."""
        from watchfiles import Change

        while not stop.is_set():
            raw = await asyncio.to_thread(backend.watch, DEBOUNCE_MS, STEP_MS, TIMEOUT_MS, stop)
            if isinstance(raw, str):
                if raw == "stop":
                    return []
                continue  # a timeout: look at `stop` again
            seen = [(Change(c), Path(p)) for c, p in raw if self.accepts(Change(c), p)]
            if seen:
                self.batches += 1
                self.on_change({path for _change, path in seen})
            if self.recursive:
                continue  # a new directory is already watched
            new = [p for change, p in seen if change == Change.added and p.is_dir()]
            if new:
                return new
        return []

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


def _subdirectories(tops: list[Path], accepts: Callable[[Change, str], bool]) -> list[Path]:
    """`tops` and the directories below them that `accepts` lets in."""
    from watchfiles import Change

    out: list[Path] = []
    for top in tops:
        for current, dirs, _files in os.walk(top):
            out.append(Path(current))
            dirs[:] = [d for d in dirs if accepts(Change.added, os.path.join(current, d))]
    return out


def _why(exc: BaseException) -> str:
    text = str(exc).split(" about ")[0].strip() or type(exc).__name__
    if "limit" in text.lower() or getattr(exc, "errno", None) in LIMIT_ERRNOS:
        return (
            f"{text}: the system's limit on watched directories is reached; raise "
            "fs.inotify.max_user_watches or open a smaller folder"
        )
    return text
