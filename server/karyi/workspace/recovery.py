"""Rolling back the calls a crash cut off, from their write-ahead journals, at start-up.

A journal left in `<root>/.karyi/journal/` (`workspace/write_ahead.py`) by a process that
is gone is a call whose writes may be half done. Rollback, not roll-forward: the journal
knows only the writes that had begun, never the ones the call would still have made, so
the only whole state it can bring back is the one before the call. Newest record first,
each file that holds exactly the bytes the call wrote gets its old bytes back (a file the
call created is removed); a file that still holds its old bytes is left; a file that holds
neither was changed by someone else since and is left alone and named.

Fail closed: a torn last line (the crash hit while it was appended, so its write never
began) is ignored; any other line that does not verify, a record outside the workspace
folders, or a journal that is not a regular file of this user means nothing is restored
from that journal; it is kept as `*.damaged` and the user is told.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from karyi.core.atomic import write_atomic
from karyi.core.errors import ToolFailure
from karyi.workspace.write_ahead import SUFFIX, decode_line, journal_dir, process_start

Inside = Callable[[Path], bool]


@dataclass
class Recovery:
    """What the rollback of one journal did, in the words the user is told."""

    journal: Path
    pid: int | None = None
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    untouched: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    damaged: str = ""

    def sentence(self) -> str:
        """One sentence: what was put back, what was left and why."""
        who = f" (process {self.pid})" if self.pid else ""
        if self.damaged:
            return (
                f"Karyi could not undo an edit that was cut off when it stopped{who}: its "
                f"write journal {self.journal.name} is damaged ({self.damaged}), so nothing "
                f"was restored from it and it was kept as {self.journal.name}.damaged; the "
                "turn's checkpoint can put the files back"
            )
        done = [
            _files(self.restored, "put back as they were before the edit"),
            _files(self.removed, "created by the edit and removed"),
            _files(self.changed, "left alone because they changed since"),
            _files(self.failed, "could not be put back"),
            _files(self.untouched, "it had not changed yet", names=False),
        ]
        said = "; ".join(d for d in done if d)
        return (
            f"Karyi undid an edit that was cut off when it stopped{who}, to keep it "
            f"all-or-nothing: {said or 'it had not changed any file yet'}"
        )


def _files(paths: list[str], what: str, *, names: bool = True) -> str:
    paths = list(dict.fromkeys(paths))
    if not paths:
        return ""
    n = len(paths)
    head = f"{n} file{'s' if n != 1 else ''} {what}"
    return f"{head}: {', '.join(paths)}" if names else head


def recover_all(root: Path, inside: Inside, display: Callable[[Path], str]) -> list[Recovery]:
    """Roll back every journal under `root` whose process is gone; `inside` says which
    paths a journal may name, `display` how to name them."""
    folder = journal_dir(root)
    if folder.is_symlink() or not folder.is_dir():
        return []
    out = []
    for journal in sorted(folder.glob(f"*{SUFFIX}")):
        recovery = recover(journal, root, inside, display)
        if recovery is not None:
            out.append(recovery)
    return out


def recover(
    journal: Path, root: Path, inside: Inside, display: Callable[[Path], str]
) -> Recovery | None:
    """Roll back one journal of the workspace at `root`; None when it is a live process's,
    another workspace's (copied along with the folder), or held nothing."""
    try:
        st = os.lstat(journal)
        data = journal.read_bytes() if stat.S_ISREG(st.st_mode) else b""
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
        return _damaged(Recovery(journal), "it is not a file of this user")
    lines = data.splitlines(keepends=True)
    header = decode_line(lines[0]) if lines else None
    if header is None or header.get("journal") != 1:
        if len(lines) <= 1:  # torn while it was being created: nothing was written yet
            _remove(journal)
            return None
        return _damaged(Recovery(journal), "its first line does not verify")
    pid = header.get("pid")
    if header.get("root") != str(root) or (
        isinstance(pid, int) and _owner_alive(pid, header.get("start"))
    ):
        return None
    recovery = Recovery(journal, pid if isinstance(pid, int) else None)
    records = _records(lines[1:], inside)
    if isinstance(records, str):
        return _damaged(recovery, records)
    for record in reversed(records):
        _roll_back(record, recovery, display)
    if not records:
        _remove(journal)
        return None
    if not recovery.failed:
        _remove(journal)
    return recovery


def _records(lines: list[bytes], inside: Inside) -> list[dict[str, Any]] | str:
    """The verified records; a torn last line is dropped. A str says why none can be used."""
    records = []
    for n, line in enumerate(lines):
        fields = decode_line(line)
        if fields is None:
            if n == len(lines) - 1:
                break  # appended when the crash came: its write never began
            return f"line {n + 2} does not verify"
        path, before, after = fields.get("path"), fields.get("before"), fields.get("after")
        if not isinstance(path, str) or not isinstance(after, str):
            return f"line {n + 2} is not a record"
        if not (before is None or isinstance(before, str)) or not inside(Path(path)):
            return f"line {n + 2} names a path outside the workspace"
        try:
            fields["before"] = None if before is None else base64.b64decode(before, validate=True)
        except ValueError:
            return f"line {n + 2} is not a record"
        records.append(fields)
    return records


def _roll_back(record: dict[str, Any], recovery: Recovery, display: Callable[[Path], str]) -> None:
    """Put one file back if it holds exactly what the call wrote."""
    path = Path(record["path"])
    name = display(path)
    old: bytes | None = record["before"]
    try:
        now = None if not os.path.lexists(path) else _content(path)
    except OSError:
        recovery.changed.append(name)
        return
    if now == old:
        recovery.untouched.append(name)
    elif now is None or hashlib.sha256(now).hexdigest() != record["after"]:
        recovery.changed.append(name)
    else:
        try:
            if old is None:
                path.unlink()
                recovery.removed.append(name)
            else:
                write_atomic(path, old, display=name)
                recovery.restored.append(name)
        except OSError as exc:
            recovery.failed.append(f"{name} ({exc.strerror or exc})")
        except ToolFailure as exc:
            recovery.failed.append(f"{name} ({exc.message})")


def _content(path: Path) -> bytes | None:
    """The bytes of a regular file; a symlink or anything else reads as "changed"."""
    if path.is_symlink() or not path.is_file():
        raise OSError("not a regular file")
    return path.read_bytes()


def _owner_alive(pid: int, start: object) -> bool:
    """True while the journal's process runs (a pid reused by another process is not it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: a live process of someone else
        pass
    return start is None or process_start(pid) in (None, start)


def _damaged(recovery: Recovery, why: str) -> Recovery:
    recovery.damaged = why
    with contextlib.suppress(OSError):
        recovery.journal.rename(recovery.journal.with_name(recovery.journal.name + ".damaged"))
    return recovery


def _remove(journal: Path) -> None:
    with contextlib.suppress(OSError):
        journal.unlink()
