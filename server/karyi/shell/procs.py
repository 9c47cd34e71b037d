"""Finding and killing every process a shell started, daemons included.

Killing a process group is not enough: with job control every pipeline gets its own
group, and a daemon calls `setsid()` to leave the session too. So every process Karyi
starts carries a tag in its environment (`KARYI_SHELL_TAG`), which children inherit
across fork and exec, and a cleanup kills, repeatedly until none is left: every process
of the shell's session, and every process whose environment carries the tag. On systems
without `/proc` only the shell's process group can be killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

TAG_VAR = "KARYI_SHELL_TAG"
_PROC = "/proc"


@dataclass(frozen=True)
class ProcInfo:
    """What /proc says about one process."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str


async def wait_event(event: asyncio.Event, seconds: float) -> None:
    """Wait until `event` is set or `seconds` pass.

    (Not `asyncio.wait_for`: on Python 3.11 it can swallow a cancellation that arrives
    just as the event is set, and a cancelled call must always stop.)
    """
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(max(seconds, 0.001)):
            await event.wait()


async def write_all(fd: int, data: bytes, limit: float) -> int:
    """Write `data`, waiting for room; returns how many bytes went in before `limit`."""
    loop = asyncio.get_running_loop()
    view = memoryview(data)
    done = 0
    deadline = time.monotonic() + limit
    while done < len(view):
        try:
            done += os.write(fd, view[done:])
            continue
        except BlockingIOError:
            pass
        ready = asyncio.Event()
        loop.add_writer(fd, ready.set)
        try:
            await wait_event(ready, deadline - time.monotonic())
        finally:
            loop.remove_writer(fd)
        if not ready.is_set():
            break
    return done


def proc_info(pid: int) -> ProcInfo | None:
    """The process's state, parent, group and session; None when it is gone."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return ProcInfo(pid, int(fields[1]), int(fields[2]), int(fields[3]), fields[0])


def _pids() -> Iterator[int]:
    with contextlib.suppress(OSError):
        for name in os.listdir(_PROC):
            if name.isdigit():
                yield int(name)


def _tagged(pid: int, prefix: bytes) -> bool:
    try:
        with open(f"{_PROC}/{pid}/environ", "rb") as f:
            env = f.read()
    except OSError:
        return False
    return any(item.startswith(prefix) for item in env.split(b"\0"))


def _protected() -> set[int]:
    """This process and its ancestors: never ours to kill."""
    mine = {0, 1}
    pid = os.getpid()
    while pid > 1 and pid not in mine:
        mine.add(pid)
        info = proc_info(pid)
        pid = info.ppid if info else 0
    return mine


def kill_group(pgid: int) -> None:
    """SIGKILL process group `pgid` and wait (briefly) until its members are dead."""
    members = [p for p in _pids() if (i := proc_info(p)) is not None and i.pgid == pgid]
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)
    wait_gone(members, 1.0)


def find_tree(sid: int | None, tag: str | None) -> list[int]:
    """Live processes in session `sid` or whose environment carries a tag starting `tag`."""
    prefix = f"{TAG_VAR}={tag}".encode() if tag else None
    skip = _protected()
    found = []
    for pid in _pids():
        if pid in skip:
            continue
        info = proc_info(pid)
        if info is None or info.state in ("Z", "X"):
            continue
        if (sid is not None and info.sid == sid) or (prefix and _tagged(pid, prefix)):
            found.append(pid)
    return found


def inner_pid(pid: int) -> int:
    """`pid` as the process itself sees it: in the sandbox's PID namespace its own number
    (the innermost of /proc/PID/status's `NSpid`), elsewhere the same."""
    try:
        with open(f"{_PROC}/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"NSpid:"):
                    return int(line.split()[-1])
    except (OSError, ValueError):
        pass
    return pid


def kill_tree(sid: int | None, tag: str | None, *, pgid: int | None = None) -> list[int]:
    """SIGKILL everything `find_tree` finds, until nothing is left; returns the pids
    killed, as the command saw them (`inner_pid`)."""
    killed: list[int] = []
    if not os.path.isdir(_PROC):
        if pgid is not None:
            with contextlib.suppress(OSError):
                os.killpg(pgid, signal.SIGKILL)
        return killed
    for _ in range(20):  # each round catches what forked during the previous one
        pids = find_tree(sid, tag)
        if not pids:
            break
        for pid in pids:
            seen = inner_pid(pid)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                if seen not in killed:
                    killed.append(seen)
        wait_gone(pids, 1.0)
    return killed


def wait_gone(pids: Iterable[int], seconds: float) -> None:
    """Block until every process in `pids` has died (zombies count), at most `seconds`.

    A pidfd becomes readable when its process exits, so this waits on the event itself;
    without pidfds (old kernels, other systems) it polls /proc every few milliseconds.
    SIGKILLed processes die within milliseconds, so the wait is short.
    """
    deadline = time.monotonic() + seconds
    fds: list[int] = []
    rest: list[int] = []
    for pid in pids:
        try:
            fds.append(os.pidfd_open(pid))
        except (OSError, AttributeError):
            rest.append(pid)
    try:
        while fds and (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select(fds, [], [], left)
            for fd in ready:
                fds.remove(fd)
                os.close(fd)
        while any(alive(p) for p in rest) and time.monotonic() < deadline:
            time.sleep(0.005)
    finally:
        for fd in fds:
            os.close(fd)


def alive(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie."""
    info = proc_info(pid)
    return info is not None and info.state not in ("Z", "X")


_READS = {"x86_64": {0, 17, 19}, "aarch64": {63, 65, 67}}
_POLLS = {"x86_64": {7, 23, 232, 270, 271, 281}, "aarch64": {22, 72, 73}}


def _syscall(pid: int) -> tuple[int, int] | None:
    """The syscall `pid` is blocked in and its first argument, when /proc tells."""
    try:
        with open(f"{_PROC}/{pid}/syscall", "rb") as f:
            fields = f.read().split()
        return int(fields[0]), int(fields[1], 16)
    except (OSError, ValueError, IndexError):
        return None


def _fd_target(pid: int, fd: int) -> str | None:
    try:
        return os.readlink(f"{_PROC}/{pid}/fd/{fd}")
    except OSError:
        return None


def reading_terminal(pgid: int, tty: str, *, polling_counts: bool) -> bool:
    """Whether a process of group `pgid` sits waiting for input from terminal `tty`.

    True when one is blocked in read() on the terminal. Blocked in poll(), select() or
    epoll with the terminal as its stdin counts only when `polling_counts` (the caller
    says the output ends like a prompt, without a newline): event-loop programs (node,
    asyncio) poll their stdin all the time while they work. Needs /proc/PID/syscall
    (Linux, same user); elsewhere it answers False and callers fall back to the
    inactivity window.
    """
    arch = os.uname().machine
    reads, polls = _READS.get(arch), _POLLS.get(arch)
    if reads is None or polls is None:
        return False
    for pid in _pids():
        info = proc_info(pid)
        if info is None or info.pgid != pgid or info.state != "S":
            continue
        call = _syscall(pid)
        if call is None:
            continue
        nr, fd = call
        if nr in reads and _fd_target(pid, fd) == tty:
            return True
        if polling_counts and nr in polls and _fd_target(pid, 0) == tty:
            return True
    return False
