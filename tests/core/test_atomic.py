"""Atomic writes: never half-written, mode kept, the original intact on any failure."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from karyi.core.atomic import TEMP_SUFFIX, copy_atomic, sweep_leftovers, write_atomic
from karyi.core.errors import ErrorCode, ToolFailure


def test_write_replaces_content_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "run.sh"
    path.write_text("#!/bin/sh\necho old\n")
    path.chmod(0o751)
    write_atomic(path, b"#!/bin/sh\necho new\n", display="run.sh")
    assert path.read_text() == "#!/bin/sh\necho new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert list(tmp_path.iterdir()) == [path]


def test_new_files_get_the_umask_mode(tmp_path: Path) -> None:
    path = tmp_path / "new.txt"
    write_atomic(path, b"x", display="new.txt")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


def test_an_exception_midway_leaves_the_original_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "data.txt"
    original = b"line 1\r\nline 2\r\n\xef\xbb\xbf bytes"
    path.write_bytes(original)

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError):
        write_atomic(path, b"new content " * 1000, display="data.txt")
    assert path.read_bytes() == original
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def test_a_refusal_before_the_rename_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("keep")

    def refuse() -> None:
        raise ToolFailure(ErrorCode.CONFLICT, "changed meanwhile")

    with pytest.raises(ToolFailure):
        write_atomic(path, b"other", display="a.txt", before_rename=refuse)
    assert path.read_text() == "keep"
    assert list(tmp_path.iterdir()) == [path]


def test_parents_only_when_asked(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "c.txt"
    with pytest.raises(ToolFailure) as info:
        write_atomic(deep, b"x", display="a/b/c.txt")
    assert info.value.code == ErrorCode.NOT_FOUND
    assert not (tmp_path / "a").exists()
    write_atomic(deep, b"x", display="a/b/c.txt", make_parents=True)
    assert deep.read_bytes() == b"x"


def test_a_directory_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolFailure) as info:
        write_atomic(tmp_path / "d", b"x", display="d")
    assert info.value.message == "d is a directory, not a file"


def test_an_explicit_mode_is_set_before_the_file_appears(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    path.write_text("{}")
    path.chmod(0o644)
    write_atomic(path, b'{"a": 1}', display="secrets.json", mode=0o600)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes() == b'{"a": 1}'


def test_copy_keeps_content_and_mode_and_leaves_no_temp_file(tmp_path: Path) -> None:
    source = tmp_path / "a.sh"
    source.write_text("echo a\n")
    source.chmod(0o750)
    target = tmp_path / "b.sh"
    copy_atomic(source, target, display="b.sh")
    assert target.read_text() == "echo a\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.sh", "b.sh"]


def test_an_aborted_copy_leaves_neither_target_nor_temp_file(tmp_path: Path) -> None:
    source = tmp_path / "a.txt"
    source.write_text("a")

    def abort() -> None:
        raise ToolFailure(ErrorCode.CONFLICT, "taken meanwhile")

    with pytest.raises(ToolFailure):
        copy_atomic(source, tmp_path / "b.txt", display="b.txt", before_rename=abort)
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_new_mode_applies_only_to_a_file_that_does_not_exist_yet(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    write_atomic(path, b"a", display="notes.md", new_mode=0o600)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o640)
    write_atomic(path, b"b", display="notes.md", new_mode=0o600)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


# -- leftovers of interrupted writes (sweep_leftovers) --------------------------------------


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", ""])
    proc.wait()
    return proc.pid


def _aged(path: Path, data: str = "half") -> Path:
    path.write_text(data)
    old = time.time() - 3600
    os.utime(path, (old, old))
    return path


def test_a_leftover_of_a_dead_writer_is_removed_and_nothing_else(tmp_path: Path) -> None:
    dead = _dead_pid()
    (tmp_path / "src").mkdir()
    leftover = _aged(tmp_path / "src" / f".main.py.{dead}.ab12cd_9.karyi-tmp")
    kept = [
        _aged(tmp_path / "src" / f".main.py.{os.getpid()}.ab12cd_9.karyi-tmp"),  # alive
        _aged(tmp_path / f"notes.{dead}.ab12cd_9.karyi-tmp"),  # no leading dot
        _aged(tmp_path / f".main.py.{dead}.AB12CD_9.karyi-tmp"),  # not mkstemp's letters
        _aged(tmp_path / f".main.py.{dead}.ab12cd_9.karyi-tmp.bak"),
        _aged(tmp_path / ".main.py.ab12cd_9.karyi-tmp"),  # no pid
        _aged(tmp_path / "user.karyi-tmp"),
        tmp_path / "src" / f".fresh.py.{dead}.ab12cd_9.karyi-tmp",  # not old enough
    ]
    kept[-1].write_text("being written")
    link = tmp_path / f".link.{dead}.ab12cd_9.karyi-tmp"
    link.symlink_to(kept[0])
    (tmp_path / ".git").mkdir()
    in_git = _aged(tmp_path / ".git" / f".HEAD.{dead}.ab12cd_9.karyi-tmp")
    assert sweep_leftovers(tmp_path) == [leftover]
    assert not leftover.exists()
    assert all(p.exists() for p in [*kept, in_git]) and link.is_symlink()


def test_an_interrupted_write_leaves_a_recognised_temp_that_the_next_start_removes(
    tmp_path: Path,
) -> None:
    target = tmp_path / "data.txt"
    script = (
        "import os, sys; from pathlib import Path; from karyi.core.atomic import write_atomic\n"
        "def die(): os._exit(9)\n"
        f"write_atomic(Path({str(target)!r}), b'new', display='data.txt', before_rename=die)\n"
    )
    subprocess.run([sys.executable, "-c", script], check=False)
    [temp] = [p for p in tmp_path.iterdir() if p.name != "data.txt"]
    assert temp.name.startswith(".data.txt.") and not target.exists()
    assert sweep_leftovers(tmp_path) == []  # too fresh: maybe another namespace's writer
    assert sweep_leftovers(tmp_path, now=time.time() + 3600) == [temp]
