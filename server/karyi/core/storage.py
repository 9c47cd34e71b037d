"""Karyi's own files (the session store under `.karyi/`) on a disk that refuses writes.

A full or read-only disk reaches the user as one sentence that names the file, the
cause and what to do, in every front end, never as `sqlite3.OperationalError`
(docs/reliability.md).
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

_CAUSES = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "the file size limit is reached",
    errno.EROFS: "the disk is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
}
_SQLITE_CAUSES = {
    "database or disk is full": "the disk is full",
    "readonly database": "the disk or the file is read-only",
    "unable to open database file": "the file cannot be created or opened",
}


class StorageUnavailable(Exception):
    """Karyi could not read or write one of its own files; the message says what to do."""


def _cause(path: Path, exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno in _CAUSES:
        return _CAUSES[exc.errno]
    text = str(exc)
    for fragment, cause in _SQLITE_CAUSES.items():
        if fragment in text.lower():
            return cause
    try:
        if shutil.disk_usage(path.parent).free == 0:
            return "the disk is full"
    except OSError:
        pass
    return f"{text or 'a disk error'} (is the disk full or read-only?)"


def storage_unavailable(path: Path, exc: BaseException, what: str) -> StorageUnavailable:
    """The error for `what` (e.g. "save the session") failing on `path` because of `exc`."""
    return StorageUnavailable(
        f"could not {what} in {path}: {_cause(path, exc)}; free some space or make "
        f"{path.parent} writable, then try again"
    )
