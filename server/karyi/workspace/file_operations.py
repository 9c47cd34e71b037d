"""Deleting, copying and moving files and directories, with precise refusals.

Every operation keeps the document store's cache honest (`forget`), refuses to touch
a workspace root itself, and never replaces an existing target: the caller must
delete it first, so nothing is overwritten by accident. A copy is atomic (a temporary
file in the target directory renamed into place).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from karyi.core.atomic import copy_atomic
from karyi.core.errors import ErrorCode, ToolFailure
from karyi.workspace.documents import DocumentStore


def _stat(path: Path, display: str) -> os.stat_result:
    try:
        return os.stat(path)
    except FileNotFoundError:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"{display}: no such file or directory") from None


def require_regular(path: Path, display: str, *, dir_hint: str) -> os.stat_result:
    """The file's stat; refuses a missing path, a directory (with `dir_hint`), a device."""
    st = _stat(path, display)
    if stat.S_ISDIR(st.st_mode):
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT, f"{display} is a directory, not a file: {dir_hint}"
        )
    if not stat.S_ISREG(st.st_mode):
        raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, f"{display} is not a regular file")
    return st


def _parent(path: Path, display: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ToolFailure(
            ErrorCode.CONFLICT, f"{display}: a parent of it is a file, not a directory"
        ) from None


def target_path(source: Path, target: Path, display: str) -> Path:
    """Where a copy or move lands: inside `target` when it is a directory; never over a file."""
    if target.is_dir():
        target = target / source.name
        display = f"{display.rstrip('/')}/{source.name}"
    if os.path.lexists(target):
        raise ToolFailure(
            ErrorCode.CONFLICT,
            f"targetPath {display} already exists; delete it first or choose another name",
        )
    return target


@dataclass(frozen=True)
class DirCount:
    """What a directory holds (recursively)."""

    files: int
    dirs: int

    def __str__(self) -> str:
        return f"{self.files} file(s), {self.dirs} director{'y' if self.dirs == 1 else 'ies'}"


def count_tree(path: Path) -> DirCount:
    """Files and directories below `path`."""
    files = dirs = 0
    for _root, dnames, fnames in os.walk(path):
        dirs += len(dnames)
        files += len(fnames)
    return DirCount(files, dirs)


def delete_file(store: DocumentStore, path: Path, display: str) -> int:
    """Remove a file, or a symlink itself (never what it points to); returns its size."""
    if os.path.islink(path):
        st = os.lstat(path)
    else:
        st = require_regular(path, display, dir_hint="use delete_directory to remove a directory")
    os.unlink(path)
    store.forget(path)
    return st.st_size


def copy_file(store: DocumentStore, source: Path, target: Path, display: str) -> int:
    """Copy a file to a new path (atomically, metadata kept); returns its size."""
    st = require_regular(source, display, dir_hint="only files can be copied")
    _parent(target, display)

    def still_free() -> None:
        if os.path.lexists(target):
            raise ToolFailure(ErrorCode.CONFLICT, f"targetPath {display} was created meanwhile")

    copy_atomic(source, target, display=display, before_rename=still_free)
    store.forget(target)
    return st.st_size


def move_path(store: DocumentStore, source: Path, target: Path, display: str) -> None:
    """Move a file, directory or symlink (the link itself) to a new path."""
    if not os.path.islink(source):
        _stat(source, display)
    _parent(target, display)
    try:
        os.rename(source, target)
    except OSError as exc:
        if exc.errno != errno.EXDEV:  # another file system: copy, then delete
            raise ToolFailure(ErrorCode.TOOL_ERROR, f"{display}: {exc.strerror}") from None
        shutil.move(source, target)
    store.forget(source)
    store.forget(target)


def make_dir(path: Path, display: str) -> bool:
    """Create a directory and its parents; False when it already existed."""
    if path.is_dir():
        return False
    if os.path.lexists(path):
        raise ToolFailure(ErrorCode.CONFLICT, f"{display} exists and is a file, not a directory")
    try:
        path.mkdir(parents=True)
    except (FileExistsError, NotADirectoryError):
        raise ToolFailure(
            ErrorCode.CONFLICT, f"{display}: a parent of it is a file, not a directory"
        ) from None
    return True


def remove_dir(
    store: DocumentStore, path: Path, display: str, *, recursive: bool, roots: tuple[Path, ...]
) -> DirCount:
    """Remove a directory; a non-empty one only with `recursive`. Returns what it held.

    A symlink to a directory is refused: deleting through it would empty the real one.
    """
    if os.path.islink(path):
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT,
            f"{display} is a symlink to {os.path.realpath(path)}, not a directory: "
            "delete_file removes the link and leaves what it points to",
        )
    st = _stat(path, display)
    if not stat.S_ISDIR(st.st_mode):
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT,
            f"{display} is a file, not a directory: use delete_file to remove a file",
        )
    if path in roots:
        raise ToolFailure(
            ErrorCode.FORBIDDEN_PATH, f"{display} is a workspace root; it cannot be deleted"
        )
    held = count_tree(path)
    if held.files or held.dirs:
        if not recursive:
            raise ToolFailure(
                ErrorCode.CONFLICT,
                f"{display} is not empty ({held}); pass recursive: true to delete it "
                "with everything in it",
            )
        shutil.rmtree(path)
    else:
        os.rmdir(path)
    store.forget(path)
    return held
