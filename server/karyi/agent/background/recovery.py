"""Tasks whose process is gone: a language server, gateway or runner killed while its
tasks ran leaves records that say `running` forever. The next process to look marks
each such task `interrupted`, keeps what it did (committed on its branch, reviewable,
appliable and discardable like a stopped task), and tells its user once
(docs/parallel.md#interrupted).

A record names the process that runs it (`runner_pid`, and its start time, so a pid
the system has since given to another process does not keep a dead task alive).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from karyi.agent.background.collect import collect
from karyi.agent.background.records import ACTIVE, INTERRUPTED, QUEUED, TaskBook, TaskRecord


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (None where /proc is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: count after its end
    return stat.rsplit(")", 1)[-1].split()


def process_start(pid: int) -> str | None:
    """When process `pid` started, in clock ticks since boot (None where /proc is not)."""
    fields = _stat(pid)
    return fields[19] if fields else None


def alive(pid: int | None, start: str | None = None) -> bool:
    """Whether process `pid` still runs: not gone, not a zombie nobody reaped, and (when
    `start` is given) the same process, not a later one given the same pid."""
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    fields = _stat(pid)
    if fields is None:
        return True
    return fields[0] != "Z" and (start is None or fields[19] == start)


def claim(record: TaskRecord) -> None:
    """Name this process as the one that runs the task."""
    record.runner_pid = os.getpid()
    record.runner_start = process_start(record.runner_pid)


def orphaned(record: TaskRecord) -> bool:
    """Whether the task is unfinished and no process runs it any more. A queued task no
    process has claimed yet waits for the CLI's runner and is not orphaned."""
    if record.status not in ACTIVE:
        return False
    if record.runner_pid is None:
        return record.status != QUEUED
    return not alive(record.runner_pid, record.runner_start)


def interrupt(book: TaskBook, record: TaskRecord) -> None:
    """Mark an orphaned task interrupted, keeping its work so far."""
    who = f"pid {record.runner_pid}" if record.runner_pid else "an earlier version"
    if Path(record.worktree).is_dir():
        collect(book, record)
    record.status, record.step, record.question = INTERRUPTED, "", None
    record.error = (
        f"interrupted: the process that ran it ({who}) ended before it finished; "
        "its work so far is kept"
    )
    record.stop_reason = record.stop_reason or INTERRUPTED
    record.finished = time.time()
    book.save(record)


def recover(book: TaskBook) -> list[TaskRecord]:
    """Mark every orphaned task of the book interrupted; the ones this call marked (each
    is returned by one call only, so whoever gets it tells the user)."""
    if not book.dir.is_dir():
        return []
    marked = []
    with _locked(book.dir / "recovery.lock"):
        for record in book.all():
            if orphaned(record):
                interrupt(book, record)
                marked.append(record)
    return marked


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def told(records: list[TaskRecord]) -> str:
    """What to tell the user about tasks `recover` marked: one sentence."""
    names = ", ".join(f'"{r.task.splitlines()[0][:50]}" ({r.id})' for r in records)
    many = len(records) > 1
    return (
        f"Karyi: {len(records)} background task{'s were' if many else ' was'} interrupted "
        f"when the process running {'them' if many else 'it'} ended: {names}. "
        "The work done so far is kept: review, apply, keep or discard it."
    )
