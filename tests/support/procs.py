"""Process checks for tests that prove no child outlives what started it."""

from __future__ import annotations


def running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (a dead child nobody reaped yet; in
    containers PID 1 often does not reap)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
