"""The document store: the one place every tool reads and writes files through.

Reads: a buffer the editor has open (fed by the LSP layer's didOpen/didChange through
`open_buffer`/`change_buffer`/`close_buffer`) wins over the disk, unsaved changes
included. Other files come from disk through a cache that is validated on every read
by a stat (mtime, size, inode, ctime), so a read never returns stale content however
late the watcher is. A file changed within `RACY_NS` of being cached is re-read
rather than trusted, because a second change inside one timestamp tick would leave
the stat identical (git's "racily clean" problem). The watcher (`start_watching`)
drops entries as other programs change files.

Writes go through `write`, atomically (`atomic.write_atomic`), and refuse to replace
a file that changed after the content they were computed from was read.

Read records: `record_read` notes which version of a file a session has seen;
`changed_since_read` lists what changed since, and `stale_reason` says why a session's
picture of one file is out of date.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from karyi.core.atomic import write_atomic
from karyi.core.errors import ErrorCode, ToolFailure
from karyi.workspace.buffers import Buffer, Changes, EditorBuffers
from karyi.workspace.files import (
    MAX_READ_BYTES,
    SNIFF_BYTES,
    binary_failure,
    looks_binary,
    require_file,
)
from karyi.workspace.folder_watchers import FolderWatchers
from karyi.workspace.ignore import GitIgnore
from karyi.workspace.readlog import Change, ReadLog
from karyi.workspace.snapshots import BOM, Snapshot, Stamp, decode_snapshot, digest
from karyi.workspace.watcher import Listener, Watcher
from karyi.workspace.write_ahead import WriteAhead

POLL_FILES = 2000
"""In the watcher's on-demand mode, how many of the most recently used files each check
stats (a bounded cost per check, however large the cache)."""
RACY_NS = 2_000_000_000
"""Files changed this recently are re-read: a timestamp tick is 1-2 s on some file systems."""
CACHE_BYTES = 64 * 1024 * 1024


@dataclass
class _Entry:
    snapshot: Snapshot
    loaded_ns: int


@dataclass
class StoreStats:
    """Counters for tests and benchmarks."""

    hits: int = 0
    loads: int = 0
    invalidations: int = 0
    extra: dict[str, int] = field(default_factory=dict)


class DocumentStore:
    """Buffers over disk, a validated cache, atomic writes and per-session read records."""

    def __init__(
        self,
        root: Path,
        ignore: GitIgnore,
        *,
        cache_bytes: int = CACHE_BYTES,
        max_read_bytes: int = MAX_READ_BYTES,
        folders: tuple[Path, ...] = (),
    ) -> None:
        self.root = root
        self.ignore = ignore
        self.max_read_bytes = max_read_bytes
        self.cache_bytes = cache_bytes
        self.reads = ReadLog()
        self.stats = StoreStats()
        self.buffers = EditorBuffers()
        self._cache: OrderedDict[Path, _Entry] = OrderedDict()
        self._cached_bytes = 0
        self._listeners: list[Listener] = []
        self._watchers = FolderWatchers(root, ignore, self._changed, self._stale_cached)
        self._watchers.add(folders)
        self.watcher = self._watchers.root_watcher

    # -- editor buffers (the LSP layer feeds these, docs in `workspace/buffers.py`) ----

    def open_buffer(self, path: Path, text: str, version: int) -> None:
        """The editor opened `path` with `text` (didOpen)."""
        self.buffers.open(path, text, version)

    def change_buffer(self, path: Path, text: str | Changes, version: int) -> None:
        """The editor changed `path` (didChange): the full text, or LSP-style changes."""
        self.buffers.change(path, text, version)

    def close_buffer(self, path: Path) -> None:
        """The editor closed `path` (didClose): the disk is the truth again."""
        self.buffers.close(path)

    def unsaved(self, path: Path) -> bool:
        """True when the editor's buffer of `path` differs from the file on disk (the
        user has unsaved changes, or the file is gone)."""
        buf = self.buffers.get(path)
        if buf is None:
            return False
        try:
            return self._load(path, str(path)).text != buf.text
        except ToolFailure:
            return True

    def buffer_version(self, path: Path) -> int | None:
        """The editor's version of an open buffer, None when it is not open."""
        buf = self.buffers.get(path)
        return buf.version if buf else None

    # -- reads --------------------------------------------------------------------------

    def read(self, path: Path, display: str) -> Snapshot:
        """The current text of a file: the open buffer, else the disk (through the cache).

        Raises ToolFailure for a missing file, a directory, a binary file.
        """
        buf = self.buffers.get(path)
        if buf is not None:
            return self._from_buffer(path, buf)
        st = require_file(path, display)
        entry = self._cache.get(path)
        if entry is not None and entry.snapshot.stamp == Stamp.of(st) and not _racy(entry, st):
            self._cache.move_to_end(path)
            self.stats.hits += 1
            return entry.snapshot
        return self._load(path, display)

    def read_optional(self, path: Path, display: str) -> Snapshot | None:
        """Like `read`, None when the file does not exist."""
        if path not in self.buffers and not os.path.lexists(path):
            return None
        return self.read(path, display)

    def exists(self, path: Path) -> bool:
        """True when the path is an open buffer or exists on disk."""
        return path in self.buffers or os.path.exists(path)

    def _from_buffer(self, path: Path, buf: Buffer) -> Snapshot:
        if buf.snapshot is None:
            data = buf.text.encode("utf-8", errors="surrogatepass")
            buf.snapshot = Snapshot(
                path, buf.text, digest(data), "buffer", len(data), buffer_version=buf.version
            )
        return buf.snapshot

    def _load(self, path: Path, display: str) -> Snapshot:
        for _attempt in range(5):
            started = time.time_ns()
            try:
                with open(path, "rb") as fh:
                    before = os.fstat(fh.fileno())
                    data = fh.read(self.max_read_bytes + 1)
                    after = os.fstat(fh.fileno())
            except PermissionError:
                raise ToolFailure(ErrorCode.TOOL_ERROR, f"{display}: permission denied") from None
            except FileNotFoundError:
                raise ToolFailure(
                    ErrorCode.NOT_FOUND, f"{display}: no such file or directory"
                ) from None
            if Stamp.of(before) == Stamp.of(after):
                break
        if looks_binary(data[:SNIFF_BYTES]):
            raise binary_failure(path, display, after.st_size)
        snap = decode_snapshot(path, data, self.max_read_bytes, Stamp.of(after))
        self.stats.loads += 1
        self._remember(path, _Entry(snap, started))
        return snap

    def _remember(self, path: Path, entry: _Entry) -> None:
        old = self._cache.pop(path, None)
        if old is not None:
            self._cached_bytes -= len(old.snapshot.text)
        self._cache[path] = entry
        self._cached_bytes += len(entry.snapshot.text)
        while self._cached_bytes > self.cache_bytes and len(self._cache) > 1:
            _p, dropped = self._cache.popitem(last=False)
            self._cached_bytes -= len(dropped.snapshot.text)

    def forget(self, path: Path) -> None:
        """Drop cached content for `path` and anything below it."""
        prefix = str(path) + os.sep
        for p in [p for p in self._cache if p == path or str(p).startswith(prefix)]:
            self._cached_bytes -= len(self._cache.pop(p).snapshot.text)

    # -- writes -------------------------------------------------------------------------

    def write(
        self,
        path: Path,
        text: str,
        *,
        display: str,
        base: Snapshot | None,
        make_parents: bool = False,
        bom: bool | None = None,
        ahead: WriteAhead | None = None,
    ) -> Snapshot:
        """Write `text` atomically, computed from `base` (None: the file must not exist),
        journaled in `ahead` first (`workspace/write_ahead.py`).

        Refuses with tool_conflict when the file is no longer what `base` says.
        """
        keep_bom = base.bom if bom is None and base is not None else bool(bom)

        def unchanged() -> None:
            self._check_unchanged(path, display, base)

        return self._write_disk(
            path,
            text,
            keep_bom,
            display=display,
            make_parents=make_parents,
            before_rename=unchanged,
            ahead=ahead,
        )

    def planned_snapshot(self, path: Path, text: str) -> Snapshot:
        """The snapshot `text` will be once the editor applied it (nothing is written)."""
        data = text.encode("utf-8", errors="surrogatepass")
        return Snapshot(path, text, digest(data), "buffer", len(data))

    def save(self, path: Path, text: str, *, display: str) -> Snapshot:
        """Write what the editor now shows to disk (atomically), so commands and tests see
        it; no version check: the editor already applied this text over its buffer."""
        keep_bom = bool(self._cache.get(path) and self._cache[path].snapshot.bom)
        return self._write_disk(path, text, keep_bom, display=display, make_parents=True)

    def _write_disk(
        self,
        path: Path,
        text: str,
        keep_bom: bool,
        *,
        display: str,
        make_parents: bool,
        before_rename: Callable[[], None] | None = None,
        ahead: WriteAhead | None = None,
    ) -> Snapshot:
        """Write atomically, remember the new content, and keep an open buffer in step."""
        data = (BOM if keep_bom else b"") + text.encode("utf-8", errors="surrogatepass")
        if ahead is not None:
            ahead.record(path, data, display)
        started = time.time_ns()
        try:
            st = write_atomic(
                path, data, display=display, make_parents=make_parents, before_rename=before_rename
            )
        except OSError as exc:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR, f"{display}: could not write it: {exc.strerror or exc}"
            ) from None
        snap = Snapshot(path, text, digest(data[len(BOM) if keep_bom else 0 :]), "disk", len(data))
        snap = replace(snap, bom=keep_bom, stamp=Stamp.of(st))
        self._remember(path, _Entry(snap, started))
        buf = self.buffers.get(path)
        if buf is not None:  # the LSP layer also sends the edit to the editor
            buf.text, buf.snapshot = text, None
            return self._from_buffer(path, buf)
        return snap

    def _check_unchanged(self, path: Path, display: str, base: Snapshot | None) -> None:
        if base is None:
            if self.exists(path):
                raise ToolFailure(
                    ErrorCode.CONFLICT, f"{display} was created by someone else meanwhile"
                )
            return
        if base.source == "buffer":
            buf = self.buffers.get(path)
            if buf is None or buf.text != base.text:
                raise ToolFailure(
                    ErrorCode.CONFLICT,
                    f"{display} was changed in the editor while this change was prepared; "
                    "read it again",
                )
            return
        try:
            now = self.read(path, display)
        except ToolFailure:
            now = None
        if now is None or now.version != base.version:
            raise ToolFailure(
                ErrorCode.CONFLICT,
                f"{display} changed on disk while this change was prepared; read it again",
            )

    # -- read records -------------------------------------------------------------------

    def record_read(self, session_id: str, path: Path, version: str) -> None:
        """`session_id` has now seen `version` of `path`."""
        self.reads.record(session_id, path, version)

    def current_version(self, path: Path) -> str | None:
        """The version a read would return now; None when the file is gone or unreadable."""
        try:
            return self.read(path, str(path)).version
        except ToolFailure:
            return None

    def stale_reason(self, session_id: str, path: Path, current: Snapshot | None) -> str | None:
        """Why the session's last read of `path` is out of date, or None if it is not."""
        seen = self.reads.last(session_id, path)
        if seen is None:
            return None
        if current is None:
            return "was deleted"
        if current.version == seen:
            return None
        return "was changed in the editor" if current.source == "buffer" else "changed on disk"

    def changed_since_read(self, session_id: str, *, only_new: bool = False) -> list[Change]:
        """Files the session read that changed since; `only_new` skips announced ones."""
        out: list[Change] = []
        for path, seen in self.reads.paths(session_id):
            buffered = path in self.buffers
            current = self.current_version(path)
            if current == seen:
                continue
            if only_new and not self.reads.announce(session_id, path, current):
                continue
            if current is None:
                what = "deleted"
            else:
                what = "modified in the editor" if buffered else "modified on disk"
            out.append(Change(path, what))
        return out

    # -- watching -----------------------------------------------------------------------

    async def set_roots(self, folders: tuple[Path, ...]) -> None:
        """Watch these workspace folders (the root is always watched)."""
        await self._watchers.set_roots(folders)

    @property
    def watchers(self) -> list[Watcher]:
        """The watcher of the root, then one per other folder."""
        return self._watchers.all

    async def start_watching(self) -> None:
        """Start watching every workspace folder (idempotent; returns before the watches
        are set up)."""
        await self._watchers.start()

    @property
    def watch_notice(self) -> str | None:
        """Why file watching is degraded (a watcher's on-demand mode), or None."""
        return self._watchers.notice

    def _stale_cached(self) -> set[Path]:
        """Cached files (the most recently used `POLL_FILES`) whose stat changed."""
        stale: set[Path] = set()
        for path in list(reversed(self._cache))[:POLL_FILES]:
            entry = self._cache.get(path)
            try:
                st = os.stat(path)
            except OSError:
                stale.add(path)
                continue
            if entry is not None and entry.snapshot.stamp != Stamp.of(st):
                stale.add(path)
        return stale

    async def stop_watching(self) -> None:
        """Stop the watchers."""
        await self._watchers.stop()

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(paths)` after the watcher reports changed paths."""
        self._listeners.append(listener)

    def _changed(self, paths: set[Path]) -> None:
        # one pass over the cache, however many paths changed (a checkout changes many)
        for cached in [p for p in self._cache if p in paths or not paths.isdisjoint(p.parents)]:
            self._cached_bytes -= len(self._cache.pop(cached).snapshot.text)
        self.stats.invalidations += len(paths)
        for listener in list(self._listeners):
            listener(paths)


def _racy(entry: _Entry, st: os.stat_result) -> bool:
    return max(st.st_mtime_ns, st.st_ctime_ns) >= entry.loaded_ns - RACY_NS
