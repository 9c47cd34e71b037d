"""Writing a file so that it is never seen half-written: the one way Karyi replaces a file.

Workspace writes, copies, the secrets file, "allow always" grants and memory files all
go through `write_atomic` or `copy_atomic`.

The new content goes to a temporary file in the same directory (same file system),
is flushed and fsynced, gets the old file's permissions, and is renamed over the old
file in one step; the directory is fsynced so the rename survives a crash. Any failure
on the way removes the temporary file and leaves the original exactly as it was.
Renaming gives the file a new inode: hard links to the old one keep the old content.

A write cut short by a crash or SIGKILL leaves its temporary file behind. Its name says
whose it was, `.<name>.<pid>.<8 random>.karyi-tmp`, so `sweep_leftovers` (run when a
workspace opens) removes exactly those whose process is gone (docs/security.md,
"Writing files").
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from karyi.core.errors import ErrorCode, ToolFailure

TEMP_SUFFIX = ".karyi-tmp"
LEFTOVER = re.compile(
    r"\A\..+\.(?P<pid>[1-9][0-9]{0,9})\.[a-z0-9_]{8}" + re.escape(TEMP_SUFFIX) + r"\Z"
)
"""The exact name of a temporary file `_temp_beside` makes; nothing else is swept."""
LEFTOVER_AGE = 60.0
"""Seconds a leftover must be untouched before it is removed (its pid may be another
namespace's)."""
SWEEP_SKIP = frozenset({".git", "node_modules"})
log = logging.getLogger(__name__)
SWEEP_LIMIT = 200_000


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _umask()


def fsync_dir(directory: Path) -> None:
    """Make a directory's entries (a rename, a new or removed file) durable; best effort."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def _temp_beside(path: Path, display: str) -> Iterator[tuple[int, str]]:
    """A new empty temporary file next to `path` (mode 0600, created exclusively), open as
    the descriptor yielded with its name, and removed again if anything fails. Writing
    through the descriptor, never the name, keeps a file swapped in meanwhile out of it."""
    try:
        fd, tmp = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=TEMP_SUFFIX
        )
    except PermissionError:
        raise ToolFailure(ErrorCode.TOOL_ERROR, f"{display}: permission denied") from None
    try:
        yield fd, tmp
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(
    path: Path,
    data: bytes,
    *,
    display: str,
    make_parents: bool = False,
    before_rename: Callable[[], None] | None = None,
    mode: int | None = None,
    new_mode: int | None = None,
) -> os.stat_result:
    """Replace `path`'s content with `data` atomically; returns the new file's stat.

    `before_rename` runs last, just before the rename, and may raise to abort (the
    document store checks there that nobody changed the file meanwhile). `mode` sets the
    permissions (the temporary file is 0600 until then); without it an existing file keeps
    its own, and a new one gets `new_mode`, else the umask's.
    """
    parent = path.parent
    if make_parents:
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise ToolFailure(
                ErrorCode.CONFLICT, f"{display}: a parent of it is a file, not a directory"
            ) from None
    elif not parent.is_dir():
        raise ToolFailure(
            ErrorCode.NOT_FOUND, f"{display}: the directory {parent.name or parent} does not exist"
        )
    try:
        old = os.stat(path)
    except FileNotFoundError:
        old = None
    if old is not None and stat.S_ISDIR(old.st_mode):
        raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, f"{display} is a directory, not a file")
    if mode is None and old is not None:
        mode = stat.S_IMODE(old.st_mode)
    elif mode is None:
        mode = new_mode if new_mode is not None else 0o666 & ~_UMASK
    with _temp_beside(path, display) as (fd, tmp):
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            os.fchmod(fh.fileno(), mode)
            if old is not None and (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
                with contextlib.suppress(PermissionError):
                    os.fchown(fh.fileno(), old.st_uid, old.st_gid)
        if before_rename is not None:
            before_rename()
        os.replace(tmp, path)
    fsync_dir(parent)
    return os.stat(path)


def copy_atomic(
    source: Path, target: Path, *, display: str, before_rename: Callable[[], None] | None = None
) -> None:
    """Copy `source` (content and metadata) to `target` in one rename; `before_rename`
    may raise to abort, leaving nothing behind."""
    with _temp_beside(target, display) as (fd, tmp):
        os.close(fd)
        shutil.copy2(source, tmp)
        if before_rename is not None:
            before_rename()
        os.replace(tmp, target)
    fsync_dir(target.parent)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: someone else's live process
        return True
    return True


def is_leftover(path: Path, now: float) -> bool:
    """True for a temporary file of an interrupted write: Karyi's exact name, a regular
    file of ours, untouched for LEFTOVER_AGE seconds, and its writer's process gone."""
    m = LEFTOVER.match(path.name)
    if m is None:
        return False
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISREG(st.st_mode)
        and st.st_uid == os.getuid()
        and now - st.st_mtime >= LEFTOVER_AGE
        and not _alive(int(m["pid"]))
    )


def sweep_leftovers(*roots: Path, now: float | None = None) -> list[Path]:
    """Remove the leftovers under `roots` (not following symlinks, skipping .git and
    node_modules, at most SWEEP_LIMIT entries); the paths removed."""
    when = time.time() if now is None else now
    removed: list[Path] = []
    seen = 0
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in SWEEP_SKIP]
            seen += len(dirs) + len(files)
            for name in files:
                path = Path(folder, name)
                if name.endswith(TEMP_SUFFIX) and is_leftover(path, when):
                    with contextlib.suppress(OSError):
                        path.unlink()
                        removed.append(path)
            if seen > SWEEP_LIMIT:
                return removed
    return removed


def sweep_and_log(*roots: Path) -> None:
    """`sweep_leftovers` for a background thread at start-up: what it removed is logged,
    and so is a failure, which never reaches the caller."""
    try:
        removed = sweep_leftovers(*dict.fromkeys(roots))
    except Exception:
        log.exception("sweeping leftover temporary files failed")
        return
    for path in removed:
        log.info("removed %s, left behind by an interrupted write", path)
