"""A warm index of the words in the workspace's source files: which files hold a name.

Finding a symbol by name starts with the files that hold the word (`candidates.py`). A
ripgrep run per call costs a process start and a pass over every file, most of a warm
call's time on a 1,000-file project. This index lists the files once with ripgrep (the
workspace's ignore rules), reads each file's distinct words once (up to `MAX_FILES`
files and `MAX_BYTES` in them, else ripgrep is asked as before), and before each
look-up only checks the mtimes: a file whose mtime or size moved is read again, and a
directory whose mtime moved (a file added, removed or renamed in it), or a change the
workspace's watcher reports, makes it list the files again
(docs/context.md#where-navigation-answers-come-from).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from karyi.core.errors import ToolFailure

WORD = re.compile(r"[\w$]+")
"""A word as `files_naming` matches a name in a buffer: letters, digits, `_` and `$`."""
MAX_FILES = 5_000
MAX_BYTES = 16_000_000
"""Above this many files, or bytes in them, the index is not kept (ripgrep is asked each
time): it holds each file's distinct words, some 40 bytes each."""


class WordIndex:
    """The files with some extensions under one root, and the words each holds."""

    def __init__(self, root: Path, extensions: Iterable[str]) -> None:
        self.root = root
        self.extensions = frozenset(e.lower() for e in extensions)
        self.too_many = False
        self._files: dict[Path, tuple[int, int, frozenset[str]]] = {}
        self._dirs: dict[Path, int] = {}
        self._stale = True
        self._lock = asyncio.Lock()

    def invalidate(self) -> None:
        """Files changed on disk (the watcher says): list them again before the next look-up."""
        self._stale = True

    async def files_with(self, name: str, under: Path) -> list[Path] | None:
        """The files under `under` that hold `name` as a word, as they are on disk now;
        None when the index cannot answer (ripgrep failed, too many files, outside)."""
        if not under.is_relative_to(self.root) or not WORD.fullmatch(name):
            return None
        async with self._lock:
            if self._stale or await asyncio.to_thread(self._dirs_moved):
                listed = await self._list()
                if listed is None:
                    return None
                await asyncio.to_thread(self._relist, listed)
            else:
                await asyncio.to_thread(self._refresh, list(self._files))
        if self.too_many:
            return None
        return sorted(
            path
            for path, (_mtime, _size, words) in self._files.items()
            if name in words and path.is_relative_to(under)
        )

    async def _list(self) -> tuple[list[Path], set[Path]] | None:
        """Every file ripgrep would search: the indexed ones, and the directories of all."""
        from karyi.workspace.ripgrep import find_files  # with the first look-up (wcmatch)

        try:
            listing = await find_files(self.root, limit=MAX_FILES * 4, ordered=False)
        except ToolFailure:
            return None
        files = [self.root / rel for rel in listing.files]
        dirs = {self.root, *(p.parent for p in files)}
        kept = [p for p in files if p.suffix.lower() in self.extensions]
        self.too_many = listing.capped or len(kept) > MAX_FILES
        return kept, dirs

    @staticmethod
    def _bytes(files: Iterable[Path]) -> int:
        total = 0
        for path in files:
            with contextlib.suppress(OSError):
                total += os.stat(path).st_size
        return total

    def _dirs_moved(self) -> bool:
        for directory, mtime in self._dirs.items():
            try:
                if os.stat(directory).st_mtime_ns != mtime:
                    return True
            except OSError:
                return True
        return False

    def _relist(self, listed: tuple[list[Path], set[Path]]) -> None:
        files, dirs = listed
        self._stale = False
        self._dirs = {}
        for directory in dirs:
            try:
                self._dirs[directory] = os.stat(directory).st_mtime_ns
            except OSError:
                continue
        self.too_many = self.too_many or self._bytes(files) > MAX_BYTES
        if self.too_many:
            self._files.clear()
            return
        keep = set(files)
        for gone in [p for p in self._files if p not in keep]:
            del self._files[gone]
        self._refresh(files)

    def _refresh(self, files: Iterable[Path]) -> None:
        """Read again each file whose mtime or size moved (drop those that are gone)."""
        for path in files:
            try:
                stat = os.stat(path)
                known = self._files.get(path)
                if known is not None and known[:2] == (stat.st_mtime_ns, stat.st_size):
                    continue
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                self._files.pop(path, None)
                continue
            words = frozenset(map(sys.intern, WORD.findall(text)))
            self._files[path] = (stat.st_mtime_ns, stat.st_size, words)
