"""The watcher: native recursive watching, and the on-demand mode it falls back to."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path

import pytest

from karyi.workspace.documents import DocumentStore
from karyi.workspace.watcher import Backend, watched_directories
from karyi.workspace.workspace import Workspace

from .test_documents import external_write


def _limit_reached(root: Path, directories: list[Path], stop: threading.Event) -> Backend:
    # what watchfiles raises when inotify_add_watch fails with ENOSPC
    raise OSError('OS file watch limit reached. about ["Inotify"]')


class _Breaks:
    """A backend that works, then fails the way a new directory past the limit does."""

    def watch(
        self, debounce_ms: int, step_ms: int, timeout_ms: int, stop_event: threading.Event
    ) -> set[tuple[int, str]] | str:
        raise OSError(28, "No space left on device")

    def close(self) -> None:
        """Nothing to release."""


async def _degraded(store: DocumentStore, root: Path) -> None:
    seen: list[set[Path]] = []
    event = asyncio.Event()

    def listener(paths: set[Path]) -> None:
        seen.append(paths)
        event.set()

    store.add_listener(listener)
    store.watcher.poll_seconds = 0.02
    store.watcher.setup_delay = 0
    await store.start_watching()
    try:
        await store.watcher.wait_ready()
        await asyncio.wait_for(store.watcher.degraded.wait(), 5)
        assert store.watcher.mode == "on-demand"
        notice = store.watch_notice
        assert notice is not None and "limit on watched directories is reached" in notice
        assert "checks each file on disk when it reads it" in notice
        path = root / "src" / "main.py"
        for i in range(20):  # same size each time: only a full stat check sees it
            external_write(path, f"print({i:02d})\n")
            assert store.read(path, "src/main.py").text == f"print({i:02d})\n"
        event.clear()
        external_write(path, "print('last')\n")
        await asyncio.wait_for(event.wait(), 5)
        assert any(path in batch for batch in seen)
        assert store.read(path, "src/main.py").text == "print('last')\n"
    finally:
        await store.stop_watching()
    assert not store.watcher.running


async def test_a_watch_limit_at_start_degrades_with_a_notice_and_reads_stay_fresh(
    ws_root: Path,
) -> None:
    store = Workspace.open(ws_root).documents
    store.watcher.backend = _limit_reached
    await _degraded(store, ws_root)


async def test_a_watch_failing_later_degrades_the_same_way(ws_root: Path) -> None:
    store = Workspace.open(ws_root).documents
    store.watcher.backend = lambda root, directories, stop: _Breaks()
    await _degraded(store, ws_root)


async def test_native_watching_reports_ready_without_a_notice(ws_root: Path) -> None:
    store = Workspace.open(ws_root).documents
    store.watcher.setup_delay = 0
    await store.start_watching()
    try:
        assert await store.watcher.wait_ready() == "native"
        assert store.watch_notice is None
    finally:
        await store.stop_watching()
    assert store.watcher.mode == "off"


async def test_the_native_watch_is_set_up_after_a_delay_and_stop_ends_the_wait(
    ws_root: Path,
) -> None:
    store = Workspace.open(ws_root).documents
    built: list[Path] = []

    def backend(root: Path, directories: list[Path], stop: threading.Event) -> Backend:
        built.append(root)
        raise AssertionError("not set up before the delay")

    store.watcher.backend = backend
    store.watcher.setup_delay = 60
    await store.start_watching()
    assert store.watcher.mode == "starting"
    await store.stop_watching()
    assert await store.watcher.wait_ready() == "off" and built == []


async def test_ignored_trees_hold_no_watch(ws_root: Path) -> None:
    for rel in ("node_modules/dep/lib", "build/out", "src/deep/er", "empty"):
        (ws_root / rel).mkdir(parents=True, exist_ok=True)
        (ws_root / rel / "f.txt").write_text("x")
    (ws_root / ".gitignore").write_text("build/\n")
    dirs = {str(d.relative_to(ws_root)) for d in await watched_directories(ws_root)}
    assert {".", "src", "src/deep", "src/deep/er", "empty"} <= dirs
    assert not {d for d in dirs if d.split("/")[0] in ("node_modules", "build", ".git")}


@pytest.mark.parametrize("recursive", [False, True])
async def test_a_new_directory_is_watched_too(ws_root: Path, recursive: bool) -> None:
    store = Workspace.open(ws_root).documents
    store.watcher.recursive = recursive  # one recursive watch, as on macOS and Windows
    seen: list[set[Path]] = []
    event = asyncio.Event()

    def listener(paths: set[Path]) -> None:
        seen.append(paths)
        event.set()

    store.add_listener(listener)
    store.watcher.setup_delay = 0
    await store.start_watching()
    try:
        assert await store.watcher.wait_ready() == "native"
        before = store.watcher.watched
        target = ws_root / "fresh" / "inner" / "new.py"
        target.parent.mkdir(parents=True)  # empty: only the new directory's walk finds it
        # watchfiles gives no "watching it now" signal: write until an event names it
        for i in range(300):
            external_write(target, f"print({i})\n")
            event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), 0.1)
            if any(target in batch for batch in seen):
                break
        assert any(target in batch for batch in seen)
        assert store.watcher.watched > before or recursive
    finally:
        await store.stop_watching()
