"""The warm word index: the files that hold a name, as they are on disk at each look-up
(a file added, changed or removed is seen without a ripgrep run per call), with the
workspace's ignore rules (docs/context.md#where-navigation-answers-come-from)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from karyi.navigation import words
from karyi.navigation.words import WordIndex


def _touch_later(path: Path, text: str) -> None:
    """Write `path` with an mtime surely after the last one (coarse clocks)."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, max(stat.st_mtime_ns, before + 10_000_000)))


def _bump_dir(directory: Path) -> None:
    stat = directory.stat()
    os.utime(directory, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))


async def test_the_index_follows_the_disk(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.py").write_text("def alpha(): ...\n")
    (tmp_path / "pkg").mkdir()
    a = tmp_path / "pkg" / "a.py"
    a.write_text("def alpha(): ...\n# beta in a comment is a word too\n")
    (tmp_path / "notes.txt").write_text("alpha\n")
    index = WordIndex(tmp_path, {".py"})
    assert await index.files_with("alpha", tmp_path) == [a]  # not build/, not .txt
    assert await index.files_with("alph", tmp_path) == []  # words, not parts of them
    b = tmp_path / "pkg" / "b.py"
    b.write_text("from pkg.a import alpha\n")
    _bump_dir(b.parent)
    assert await index.files_with("alpha", tmp_path) == [a, b]  # a new file
    _touch_later(a, "def gamma(): ...\n")
    assert await index.files_with("alpha", tmp_path) == [b]  # a changed one
    assert await index.files_with("gamma", tmp_path / "pkg") == [a]
    b.unlink()
    assert await index.files_with("alpha", tmp_path) == []  # a removed one
    assert await index.files_with("gamma", tmp_path / "other") == []
    assert await index.files_with("a.b", tmp_path) is None  # not a word: ripgrep decides


async def test_a_change_the_watcher_reports_lists_again(tmp_path: Path) -> None:
    (tmp_path / "deep").mkdir()
    index = WordIndex(tmp_path, {".py"})
    assert await index.files_with("delta", tmp_path) == []
    new = tmp_path / "deep" / "c.py"
    new.write_text("delta = 1\n")
    index.invalidate()
    assert await index.files_with("delta", tmp_path) == [new]


async def test_a_large_workspace_is_left_to_ripgrep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("epsilon = 1\n")
    monkeypatch.setattr(words, "MAX_FILES", 1)
    assert await WordIndex(tmp_path, {".py"}).files_with("epsilon", tmp_path) is None
    monkeypatch.setattr(words, "MAX_FILES", 10)
    monkeypatch.setattr(words, "MAX_BYTES", 20)  # 24 bytes in them
    assert await WordIndex(tmp_path, {".py"}).files_with("epsilon", tmp_path) is None
    monkeypatch.setattr(words, "MAX_BYTES", 24)
    found = await WordIndex(tmp_path, {".py"}).files_with("epsilon", tmp_path)
    assert found == [tmp_path / "a.py", tmp_path / "b.py"]
