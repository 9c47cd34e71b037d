"""A write-ahead journal that makes one call's writes all-or-nothing across a crash.

Each write is atomic on its own (`core/atomic.py`), but one call (an edit of eight files)
makes several. Before a call's first disk write a journal file is opened in
`<root>/.karyi/journal/`; before each write one record is appended and fsynced: the
path, the bytes it held before (or that it did not exist) and the digest of the bytes it
will hold after. When the call's writes are done the journal is removed. A journal left
behind names a call that a crash cut off: the next start rolls its files back
(`workspace/recovery.py`, docs/reliability.md#edits-cut-off-by-a-crash).

A line is `JSON HMAC-SHA256(JSON)\\n` under this user's journal key (`journal_key.py`): a
torn or altered line, or one that another key signed (a journal shipped in a repository),
fails its check and is never trusted. The first line names the process that owns the
journal (pid and start time), so another Karyi on the same workspace leaves a live
process's journal alone, and the workspace it belongs to (a journal copied or cloned
along with a folder is not its own).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import secrets
from pathlib import Path
from typing import Any

from karyi.core.atomic import fsync_dir
from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.storage import storage_unavailable
from karyi.workspace.journal_key import sign, verified
from karyi.workspace.localdir import local_dir

VERSION = 1
SUFFIX = ".journal"


def journal_dir(root: Path) -> Path:
    """`<root>/.karyi/journal/`, where the journals of this workspace's calls live."""
    return root / ".karyi" / "journal"


def process_start(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot, Linux), None where unknown: with
    the pid it tells a live owner from a new process that reuses its number."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None


def encode_line(fields: dict[str, Any]) -> bytes:
    """One journal line: the JSON and its checksum."""
    text = json.dumps(fields, separators=(",", ":"), sort_keys=True)
    return f"{text} {sign(text)}\n".encode()


def decode_line(line: bytes) -> dict[str, Any] | None:
    """The fields of a whole, verified line; None for a torn or altered one."""
    if not line.endswith(b"\n"):
        return None
    text, _, check = line[:-1].decode("utf-8", "replace").rpartition(" ")
    if not verified(text, check):
        return None
    try:
        fields = json.loads(text)
    except ValueError:
        return None
    return fields if isinstance(fields, dict) else None


def _before(path: Path) -> str | None:
    """The file's bytes now, base64; None when it does not exist."""
    try:
        return base64.b64encode(path.read_bytes()).decode()
    except FileNotFoundError:
        return None


class WriteAhead:
    """The journal of one call's writes: `record` before each write, `close` after the last.

    Nothing is created until the first record, so a call that writes nothing leaves no
    trace. A journal that cannot be written refuses the write (`ToolFailure`) and leaves
    the file as it was.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path: Path | None = None
        self._fd: int | None = None
        self._size = 0
        self._broken = False

    def record(self, path: Path, after: bytes, display: str) -> None:
        """Journal (durably) that `path` is about to hold `after`; raises ToolFailure,
        nothing written, when the journal cannot be written."""
        try:
            line = encode_line(
                {"path": str(path), "before": _before(path), "after": _digest(after)}
            )
        except OSError as exc:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR, f"{display}: could not read it: {exc.strerror or exc}"
            ) from None
        try:
            if self._broken:
                raise OSError("an earlier record could not be written")
            if self._fd is None:
                line = self._open() + line
            self._append(line)
        except OSError as exc:
            where = self.path or journal_dir(self.root) / "…"
            unavailable = storage_unavailable(where, exc, "write the write-ahead journal")
            raise ToolFailure(
                ErrorCode.TOOL_ERROR, f"{display} was not written: {unavailable}"
            ) from None

    def _open(self) -> bytes:
        """Create the journal file; the header line that must go first."""
        folder = local_dir(self.root) / "journal"
        folder.mkdir(exist_ok=True)
        pid = os.getpid()
        self.path = folder / f"{pid}.{secrets.token_hex(4)}{SUFFIX}"
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        fsync_dir(folder)
        header = {
            "journal": VERSION,
            "pid": pid,
            "start": process_start(pid),
            "root": str(self.root),
        }
        return encode_line(header)

    def _append(self, line: bytes) -> None:
        """Write `line` whole and fsync it; on failure cut the file back to its last
        whole line (a later record must not follow a torn one)."""
        assert self._fd is not None
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view) :]
            os.fsync(self._fd)
        except OSError:
            try:
                os.ftruncate(self._fd, self._size)
                os.fsync(self._fd)
            except OSError:
                self._broken = True
            raise
        self._size += len(line)

    def close(self) -> None:
        """The call's writes are done: remove the journal (no-op when none was opened)."""
        if self._fd is None or self.path is None:
            return
        os.close(self._fd)
        self._fd = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        fsync_dir(self.path.parent)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
