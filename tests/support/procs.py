"""Process checks for tests that prove no child outlives what started it."""

from __future__ import annotations

import os


def running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (a dead child nobody reaped yet; in
    containers PID 1 often does not reap)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


MARK_VAR = "KARYI_TEST_MARK"
"""Set to a fresh value per test: every process the test's shells start inherits it, so
the test can find them on this side of a sandbox's PID namespace."""


def _environ_has(pid: str, entry: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return entry in fh.read().split(b"\0")
    except OSError:
        return False


def _inner(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"NSpid:"):
                    return int(line.split()[-1])
    except (OSError, ValueError):
        return None
    return None


def marked(mark: str) -> list[int]:
    """Live processes (not zombies) whose environment carries `MARK_VAR=mark`."""
    entry = f"{MARK_VAR}={mark}".encode()
    return [
        int(p)
        for p in os.listdir("/proc")
        if p.isdigit() and _environ_has(p, entry) and running(int(p))
    ]


def host_pid(inner: int, mark: str) -> int | None:
    """The pid, as seen here, of the marked process that sees itself as `inner` (in the
    sandbox a command has PID numbers of its own; elsewhere they are the same)."""
    for pid in marked(mark):
        if _inner(str(pid)) == inner:
            return pid
    return None
