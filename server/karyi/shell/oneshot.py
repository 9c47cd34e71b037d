"""One-shot commands (agentxml's `run_command`, the `shell` of vecli and the gateway).

Each command runs as `bash -c` in a new session and process group, stdin from
/dev/null (a command that wants input gets end-of-file at once instead of hanging),
stdout and stderr merged as a terminal would show them. It ends when the command exits,
when it has printed nothing for the idle limit, or at the overall limit; cancelling the
call ends it too. Whichever way it ends, every process it started (background jobs and
daemons included, see `procs`) is killed, so nothing outlives the call.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from karyi.shell.output import OutputLog, TextDecoder
from karyi.shell.procs import TAG_VAR, kill_tree, wait_event
from karyi.shell.signals import default_signals


@dataclass(frozen=True)
class OneShotOutcome:
    """How a one-shot command ended."""

    exit_code: int | None
    signal: str | None = None
    timed_out: str | None = None
    stopped: list[int] = field(default_factory=list)
    seconds: float = 0.0


class _Watch(asyncio.SubprocessProtocol):
    """Pushes output to `feed` and notes the exit and the end of output as they happen.

    (`Process.wait()` would not do: it waits for the output pipe to close, which a
    background child can keep open forever.)
    """

    def __init__(self, log: OutputLog, mirror: Callable[[str], None] | None) -> None:
        self.log = log
        self.mirror = mirror
        self.decoder = TextDecoder()
        self.changed = asyncio.Event()
        self.exited = False
        self.eof = False
        self.last = time.monotonic()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        """See `asyncio.SubprocessProtocol`."""
        self.feed(self.decoder.feed(data))
        self.last = time.monotonic()
        self.changed.set()

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        """See `asyncio.SubprocessProtocol`."""
        self.eof = True
        self.changed.set()

    def process_exited(self) -> None:
        """See `asyncio.SubprocessProtocol`."""
        self.exited = True
        self.changed.set()

    def feed(self, text: str) -> None:
        """Clean text to the log and the mirror."""
        if text:
            self.log.feed(text)
            if self.mirror is not None:
                self.mirror(text)

    async def until(self, seconds: float) -> None:
        """Wait for the next change, at most `seconds`."""
        self.changed.clear()
        await wait_event(self.changed, seconds)


async def run_oneshot(
    command: str,
    *,
    shell: str,
    cwd: Path,
    env: Mapping[str, str],
    tag: str,
    log: OutputLog,
    overall: float,
    idle: float,
    mirror: Callable[[str], None] | None = None,
    prefix: Sequence[str] = (),
    leftovers: tuple[str, Path] | None = None,
) -> OneShotOutcome:
    """Run `command` to its end (see the module docstring); `prefix` is the sandbox's
    argv (bwrap … --) the shell runs under, if any, and `leftovers` the file (its path
    inside the sandbox, and outside) where the sandbox lists what still ran when the
    command ended: the sandbox's end kills those before Karyi could see them."""
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    argv = [*prefix, shell, "-c", command]
    if prefix and leftovers is not None:
        argv = [*prefix, shell, "-c", _LIST_LEFTOVERS, shell, command, leftovers[0]]
    transport, watch = await loop.subprocess_exec(
        lambda: _Watch(log, mirror),
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        cwd=str(cwd),
        env={**env, TAG_VAR: tag},
        start_new_session=True,
        preexec_fn=default_signals,
    )
    pid = transport.get_pid()
    stopped: list[int] = []
    try:
        timed_out, stopped = await _pump(watch, pid, tag, started + overall, idle)
    finally:
        stopped += kill_tree(pid, tag, pgid=pid)
        deadline = time.monotonic() + 5.0
        while not (watch.exited and watch.eof) and time.monotonic() < deadline:
            await watch.until(deadline - time.monotonic())
        transport.close()
        watch.feed(watch.decoder.feed(b"", final=True))
    code = transport.get_returncode()
    if prefix:
        code = _unwrap_status(code)
        stopped += _read_leftovers(leftovers[1] if leftovers else None)
        stopped = [p for p in stopped if p not in (1, 2)]  # bwrap's init, its shell
    sig = signal.Signals(-code).name if code is not None and code < 0 else None
    return OneShotOutcome(
        exit_code=code if timed_out is None else None,
        signal=sig if timed_out is None else "SIGKILL",
        timed_out=timed_out,
        stopped=sorted(set(stopped) - {pid}),
        seconds=time.monotonic() - started,
    )


# Runs the command in a child shell, then lists the processes of the sandbox's PID
# namespace still alive (but 1, bwrap's init, and this shell) into "$2".
_LIST_LEFTOVERS = (
    '"$0" -c "$1"; s=$?; for p in /proc/[0-9]*; do p=${p#/proc/}; '
    '[ "$p" = 1 ] || [ "$p" = $$ ] || [ "$p" = "${KARYI_NET_RELAY:-}" ] || echo "$p"; '
    'done > "$2" 2>/dev/null; exit $s'
)


def _read_leftovers(path: Path | None) -> list[int]:
    if path is None:
        return []
    try:
        text = path.read_text("ascii", "replace")
        path.unlink()
    except OSError:
        return []
    return [int(w) for w in text.split() if w.isdigit()]


def _unwrap_status(code: int | None) -> int | None:
    """The shell's own status behind bwrap's: bwrap exits 128+N when the command died
    of signal N (as bash's `$?` says it); that is told as the signal again."""
    if code is not None and 128 < code < 128 + signal.NSIG:
        with contextlib.suppress(ValueError):
            return -int(signal.Signals(code - 128))
    return code


async def _pump(
    watch: _Watch, pid: int, tag: str, deadline: float, idle: float
) -> tuple[str | None, list[int]]:
    """Wait for the end of output and the exit, a limit, or a child holding output open."""
    stopped: list[int] = []
    reaped = False
    while not (watch.exited and watch.eof):
        if watch.exited and not reaped:
            # The command is over but a background child holds its output open:
            # stop it rather than wait for it.
            stopped = kill_tree(pid, tag, pgid=pid)
            reaped = True
        now = time.monotonic()
        if now >= deadline:
            return "timeout", stopped
        if now - watch.last >= idle:
            return "idle", stopped
        await watch.until(min(deadline, watch.last + idle) - now)
    return None, stopped
