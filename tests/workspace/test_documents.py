"""The document store: buffers over disk, reads never stale, read records, the watcher."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.workspace.documents import DocumentStore
from karyi.workspace.readlog import Change
from karyi.workspace.workspace import Workspace


@pytest.fixture
def store(ws_root: Path) -> DocumentStore:
    return Workspace.open(ws_root).documents


def external_write(path: Path, text: str) -> None:
    """Another process writes the file (in place, like most editors' plain save)."""
    code = "import sys; open(sys.argv[1], 'w').write(sys.argv[2])"
    subprocess.run([sys.executable, "-c", code, str(path), text], check=True)


def test_workspace_has_one_store(ws_root: Path) -> None:
    ws = Workspace.open(ws_root)
    assert ws.documents is ws.documents


def test_a_change_by_another_process_is_seen_by_the_next_read(
    store: DocumentStore, ws_root: Path
) -> None:
    path = ws_root / "README.md"
    assert store.read(path, "README.md").text == "# Demo\n\nHello.\n"
    for i in range(20):  # same size each time, within one timestamp tick
        external_write(path, f"version {i:02d}\n")
        assert store.read(path, "README.md").text == f"version {i:02d}\n"


def test_unchanged_files_come_from_the_cache(
    store: DocumentStore, ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = ws_root / "src" / "main.py"
    store.read(path, "src/main.py")
    loads = store.stats.loads
    # just written, the file is "racy" (a change in the same tick could hide): re-read
    store.read(path, "src/main.py")
    assert store.stats.loads == loads + 1
    monkeypatch.setattr("karyi.workspace.documents.RACY_NS", -(10**18))
    hits = store.stats.hits
    assert store.read(path, "src/main.py").text == "print('hi')\n"
    assert store.stats.hits == hits + 1 and store.stats.loads == loads + 1


def test_overlay_buffer_beats_disk_until_closed(store: DocumentStore, ws_root: Path) -> None:
    path = ws_root / "src" / "main.py"
    store.open_buffer(path, "print('unsaved')\n", 1)
    snap = store.read(path, "src/main.py")
    assert (snap.text, snap.source, snap.buffer_version) == ("print('unsaved')\n", "buffer", 1)
    store.change_buffer(path, [((0, 7, 0, 14), "edited")], 2)
    assert store.read(path, "src/main.py").text == "print('edited')\n"
    store.change_buffer(path, "whole\n", 3)
    assert store.read(path, "src/main.py").text == "whole\n"
    assert store.buffer_version(path) == 3
    store.close_buffer(path)
    assert store.read(path, "src/main.py").text == "print('hi')\n"


def test_incremental_buffer_changes_use_utf16_columns(store: DocumentStore, ws_root: Path) -> None:
    path = ws_root / "u.txt"
    store.open_buffer(path, "😀ab\nline2\n", 1)
    store.change_buffer(path, [((0, 2, 0, 3), "A"), ((1, 0, 1, 4), "LINE")], 2)
    assert store.read(path, "u.txt").text == "😀Ab\nLINE2\n"


def test_reads_refuse_missing_directory_and_binary(store: DocumentStore, ws_root: Path) -> None:
    (ws_root / "bin.dat").write_bytes(b"\x00\x01\x02" * 10)
    cases = {
        "missing.txt": (ErrorCode.NOT_FOUND, "missing.txt: no such file or directory"),
        "src": (ErrorCode.INVALID_TOOL_INPUT, "src is a directory, not a file"),
        "bin.dat": (ErrorCode.BINARY_FILE, "bin.dat is a binary file (binary data, 30 B)"),
    }
    for name, (code, message) in cases.items():
        with pytest.raises(ToolFailure) as info:
            store.read(ws_root / name, name)
        assert info.value.code == code and info.value.message.startswith(message)


def test_read_records_and_changes_since_read(store: DocumentStore, ws_root: Path) -> None:
    readme, main = ws_root / "README.md", ws_root / "src" / "main.py"
    for path in (readme, main):
        store.record_read("s1", path, store.read(path, path.name).version)
    assert store.changed_since_read("s1") == []
    external_write(readme, "changed\n")
    main.unlink()
    assert store.changed_since_read("s1") == [
        Change(readme, "modified on disk"),
        Change(main, "deleted"),
    ]
    assert len(store.changed_since_read("s1", only_new=True)) == 2
    assert store.changed_since_read("s1", only_new=True) == []
    assert store.changed_since_read("s2") == []


def test_editor_changes_count_as_changes_since_read(store: DocumentStore, ws_root: Path) -> None:
    path = ws_root / "README.md"
    store.record_read("s", path, store.read(path, "README.md").version)
    store.open_buffer(path, "typed in the editor\n", 5)
    assert store.changed_since_read("s") == [Change(path, "modified in the editor")]
    assert store.stale_reason("s", path, store.read(path, "README.md")) == (
        "was changed in the editor"
    )


def test_stale_reason(store: DocumentStore, ws_root: Path) -> None:
    path = ws_root / "README.md"
    assert store.stale_reason("s", path, store.read(path, "README.md")) is None  # never read
    store.record_read("s", path, store.read(path, "README.md").version)
    assert store.stale_reason("s", path, store.read(path, "README.md")) is None
    external_write(path, "new\n")
    assert store.stale_reason("s", path, store.read(path, "README.md")) == "changed on disk"
    assert store.stale_reason("s", path, None) == "was deleted"


def test_write_refuses_when_the_file_changed_after_its_base_was_read(
    store: DocumentStore, ws_root: Path
) -> None:
    path = ws_root / "README.md"
    base = store.read(path, "README.md")
    external_write(path, "someone else\n")
    with pytest.raises(ToolFailure) as info:
        store.write(path, "mine\n", display="README.md", base=base)
    assert info.value.code == ErrorCode.CONFLICT
    assert path.read_text() == "someone else\n"
    with pytest.raises(ToolFailure):
        store.write(path, "mine\n", display="README.md", base=None)  # must not exist


def test_write_keeps_a_bom_and_updates_the_cache(store: DocumentStore, ws_root: Path) -> None:
    path = ws_root / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfhello\n")
    base = store.read(path, "bom.txt")
    assert base.text == "hello\n" and base.bom
    snap = store.write(path, "bye\n", display="bom.txt", base=base)
    assert path.read_bytes() == b"\xef\xbb\xbfbye\n"
    assert store.read(path, "bom.txt").version == snap.version


def test_cache_is_bounded(ws_root: Path) -> None:
    ws = Workspace.open(ws_root)
    small = DocumentStore(ws.root, ws.gitignore, cache_bytes=30)
    for i in range(5):
        p = ws_root / f"f{i}.txt"
        p.write_text("x" * 20)
        small.read(p, p.name)
    assert len(small._cache) == 1


async def test_the_watcher_invalidates_changed_files(store: DocumentStore, ws_root: Path) -> None:
    seen: list[set[Path]] = []
    event = asyncio.Event()

    def listener(paths: set[Path]) -> None:
        seen.append(paths)
        event.set()

    store.add_listener(listener)
    store.watcher.setup_delay = 0
    await store.start_watching()
    try:
        target = ws_root / "src" / "main.py"
        # watchfiles gives no "ready" signal: write until the first event arrives
        for i in range(200):
            external_write(target, f"print({i})\n")
            try:
                await asyncio.wait_for(event.wait(), 0.1)
                break
            except TimeoutError:
                continue
        assert any(target in batch for batch in seen)
        assert store.stats.invalidations >= 1
        assert store.watcher.accepts(1, str(ws_root / "debug.log")) is False  # type: ignore[arg-type]
        assert store.watcher.accepts(1, str(ws_root / "node_modules" / "x.js")) is False  # type: ignore[arg-type]
        assert store.watcher.accepts(1, str(ws_root / ".git" / "HEAD")) is False  # type: ignore[arg-type]
    finally:
        await store.stop_watching()
    assert not store.watcher.running


def test_a_changed_directory_drops_everything_below_it(store: DocumentStore, ws_root: Path) -> None:
    main, readme = ws_root / "src" / "main.py", ws_root / "README.md"
    store.read(main, "src/main.py")
    store.read(readme, "README.md")
    store._changed({ws_root / "src"})
    assert main not in store._cache and readme in store._cache
