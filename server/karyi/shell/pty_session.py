"""One persistent bash on a pseudo-terminal, driven without ever typing a script into it.

How a command runs: `pty_start.py` starts bash so that after every command it prints a
marker and reads the next script from a private pipe. To run a script we discard
anything still queued on the terminal, write the script and a NUL to the pipe, and type
one constant line that evals it; so scripts of any length and content never pass
through the line editor, the shell's state persists, and the command's stdin is the
terminal: `read`, `python3 -i`, y/n prompts and Ctrl-C behave as they do for a person.

A call returns when the marker arrives (`done`), when the shell exits (`exited`), or,
with the command still running, after the inactivity window, the call's timeout, or as
soon as the foreground process is seen waiting for terminal input (`running`).
Output is read by an event-loop reader (no thread blocks; a wake-up reads all the
terminal holds) and gathered into batches of up to `BATCH` bytes or `BATCH_DELAY`
seconds; each batch is decoded, stripped of control sequences and fed to the command's
`OutputLog` at once, so the work per read is a copy and the work per byte is done in
large pieces (docs/architecture.md#the-terminal). A batch is handed on at once when it
may hold a marker, and before any call returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from karyi.shell.output import OutputLog, TextDecoder
from karyi.shell.procs import kill_tree, reading_terminal, wait_event, write_all
from karyi.shell.pty_start import ShellStartError, configure_terminal, spawn_shell

PROBE_AFTER = 0.3
"""Seconds of silence before we look whether the foreground process waits for input."""
START_TIMEOUT = 15.0
IDLE_KEEP = 64 * 1024
BATCH = 256 * 1024
"""Bytes read before they are processed without waiting for `BATCH_DELAY`."""
BATCH_DELAY = 0.01
"""Seconds output may wait unprocessed (what a live view of the output lags at most)."""


@dataclass(frozen=True)
class Limits:
    """How long one call may wait: in total, and without output."""

    timeout: float
    inactivity: float


@dataclass(frozen=True)
class Outcome:
    """How a call ended: `done` (with exit code and cwd), `running`, or `exited`."""

    state: str
    exit_code: int | None = None
    cwd: str | None = None
    waiting_for_input: bool = False
    reason: str = ""
    quiet_for: float = 0.0


class PtyShell:
    """A running shell on a pty (see the module docstring). Start with `PtyShell.start`."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        fds: tuple[int, int, int, int],
        nonce: str,
        tag: str,
    ) -> None:
        master, slave, pipe, fd = fds
        self.proc = proc
        self.pid = proc.pid
        self._master = master
        self._slave = slave
        self._pipe = pipe
        self.tty = os.ttyname(slave)
        self.tag = tag
        self.state = "starting"
        self.exit_code: int | None = None
        self._marker_head = b"\x1f" + nonce.encode() + b";"
        self._marker = re.compile(re.escape(self._marker_head) + rb"(-?\d+);([^\x1f]*)\x1f")
        self._run_line = f"eval $'unset __karyi_c\\n'\"$__karyi_c\" {fd}<&-\n".encode()
        self._raw = b""
        self._inbox = bytearray()
        self._batch_timer: asyncio.TimerHandle | None = None
        self._decoder = TextDecoder()
        self._log: OutputLog | None = None
        self._idle_output: list[str] = []
        self._mirror: Callable[[str], None] | None = None
        self._changed = asyncio.Event()
        self._last_output = time.monotonic()
        self._result: tuple[int, str] = (0, "")
        self._watcher: asyncio.Task[None] | None = None
        self._closed = False
        self._ends_line = True

    @classmethod
    async def start(
        cls,
        *,
        shell: str,
        cwd: Path,
        env: Mapping[str, str],
        tag: str,
        prefix: Sequence[str] = (),
    ) -> PtyShell:
        """Start `shell` in `cwd` and wait for its first marker; `prefix` is the sandbox's
        argv (bwrap … --) it runs under, if any (bwrap passes the script pipe through)."""
        spawned = await spawn_shell(shell=shell, cwd=cwd, env=env, tag=tag, prefix=prefix)
        fds = (spawned.master, spawned.slave, spawned.pipe, spawned.fd)
        self = cls(spawned.proc, fds, spawned.nonce, tag)
        self._attach()
        try:
            await self._await_start(shell)
        except BaseException:
            self._dispose()
            raise
        return self

    def _attach(self) -> None:
        os.set_blocking(self._master, False)
        os.set_blocking(self._pipe, False)
        loop = asyncio.get_running_loop()
        loop.add_reader(self._master, self._on_readable)
        self._watcher = loop.create_task(self._watch_exit())

    async def _await_start(self, shell: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while self.state == "starting":
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._changed.clear()
            await wait_event(self._changed, left)
        if self.state != "idle":
            said = "".join(self._idle_output).strip()[-500:]
            raise ShellStartError(
                f"{shell} did not start as an interactive bash-compatible shell"
                + (f"; it printed: {said}" if said else "")
            )
        self._idle_output.clear()

    # -- reading ------------------------------------------------------------------------

    def _on_readable(self) -> None:
        """Read what the terminal holds: the kernel hands a pty's output over in pieces of
        about 4 KiB, so we read again until it has no more (or a batch is full) rather
        than go back to the event loop after each piece (a third of the reading cost)."""
        loop = asyncio.get_running_loop()
        got = marker = False
        while len(self._inbox) < BATCH and not marker:
            try:
                data = os.read(self._master, 65536)
            except BlockingIOError:
                break
            except OSError:
                data = b""
            if not data:
                loop.remove_reader(self._master)
                self._drain()
                self._changed.set()
                return
            got = True
            self._inbox += data
            marker = b"\x1f" in data
        if not got:
            return
        self._last_output = time.monotonic()
        if marker or len(self._inbox) >= BATCH:
            self._drain()
        elif self._batch_timer is None:
            self._batch_timer = loop.call_later(BATCH_DELAY, self._drain)

    def _drain(self) -> None:
        """Process every byte read so far (a marker in it ends the command)."""
        if self._batch_timer is not None:
            self._batch_timer.cancel()
            self._batch_timer = None
        if not self._inbox:
            return
        data = bytes(self._inbox)
        self._inbox.clear()
        state = self.state
        self._scan(data)
        if self.state != state:
            self._changed.set()

    def _scan(self, data: bytes) -> None:
        raw = self._raw + data
        while m := self._marker.search(raw):
            self._emit(raw[: m.start()])
            raw = raw[m.end() :]
            self._on_marker(int(m.group(1)), m.group(2).decode("utf-8", "replace"))
        cut = raw.rfind(b"\x1f")
        tail = raw[cut:] if cut >= 0 else b""
        head = self._marker_head
        if tail and len(tail) < 4096 and (head.startswith(tail) or tail.startswith(head)):
            self._raw = tail
            raw = raw[:cut]
        else:
            self._raw = b""
        self._emit(raw)

    def _emit(self, data: bytes) -> None:
        if not data:
            return
        text = self._decoder.feed(data)
        if not text:
            return
        self._ends_line = text.endswith("\n")
        if self._mirror is not None:
            self._mirror(text)
        if self._log is not None and self.state == "busy":
            self._log.feed(text)
        else:
            self._idle_output.append(text)
            while sum(map(len, self._idle_output)) > IDLE_KEEP and len(self._idle_output) > 1:
                self._idle_output.pop(0)

    def _on_marker(self, code: int, cwd: str) -> None:
        if self.state in ("starting", "busy"):
            self.state = "idle"
            self._result = (code, cwd)
            self._mirror = None

    async def _watch_exit(self) -> None:
        code = await self.proc.wait()
        with contextlib.suppress(OSError):
            while data := os.read(self._master, 65536):
                self._inbox += data
        self._drain()
        self.exit_code = code
        self.state = "dead"
        self._changed.set()

    # -- writing ------------------------------------------------------------------------

    def _fresh_terminal(self) -> None:
        """Echo off (a crashed program may have left it on) and type-ahead discarded."""
        configure_terminal(self._slave)
        termios.tcflush(self._slave, termios.TCIFLUSH)

    # -- calls --------------------------------------------------------------------------

    @property
    def master(self) -> int:
        """The terminal's master side (what a user's keyboard would write to)."""
        return self._master

    @property
    def busy(self) -> bool:
        """A command is running."""
        return self.state == "busy"

    @property
    def alive(self) -> bool:
        """The shell process still runs."""
        return self.state in ("idle", "busy")

    @property
    def last_result(self) -> tuple[int, str]:
        """Exit code and cwd of the last command that finished."""
        return self._result

    def take_idle_output(self) -> str:
        """What background jobs printed while no command ran."""
        self._drain()
        text, self._idle_output = "".join(self._idle_output), []
        return text

    async def run(
        self,
        script: str,
        log: OutputLog,
        limits: Limits,
        mirror: Callable[[str], None] | None = None,
    ) -> Outcome:
        """Run `script` (the shell must be idle) and wait as `limits` allow."""
        if self.state != "idle":
            raise RuntimeError(f"cannot run a command: the shell is {self.state}")
        self._drain()
        self._log, self._mirror = log, mirror
        self._ends_line = True
        self._fresh_terminal()
        self.state = "busy"
        self._last_output = started = time.monotonic()
        await write_all(self._pipe, script.encode("utf-8", "replace") + b"\0", 30.0)
        await write_all(self._master, self._run_line, 5.0)
        return await self._collect(limits, started)

    async def send(
        self, data: bytes, limits: Limits, mirror: Callable[[str], None] | None = None
    ) -> tuple[int, Outcome]:
        """Type `data` to the running command, then wait; returns bytes accepted and outcome."""
        if self.state != "busy":
            raise RuntimeError(f"cannot send input: the shell is {self.state}")
        self._drain()
        self._mirror = mirror
        started = time.monotonic()
        sent = await write_all(self._master, data, min(limits.timeout, 5.0))
        return sent, await self._collect(limits, started)

    async def wait(self, limits: Limits, mirror: Callable[[str], None] | None = None) -> Outcome:
        """Keep waiting for the running command."""
        self._drain()
        self._mirror = mirror
        return await self._collect(limits, time.monotonic())

    async def _collect(self, limits: Limits, started: float) -> Outcome:
        """Wait for the marker, the exit or a limit; output read by then is in the log."""
        deadline = started + limits.timeout
        probe_at = 0.0
        while True:
            self._drain()
            if self.state == "dead":
                return Outcome("exited", exit_code=self.exit_code)
            if self.state == "idle":
                code, cwd = self._result
                return Outcome("done", code, cwd)
            now = time.monotonic()
            last = max(self._last_output, started)
            quiet = now - last
            if now >= deadline:
                return Outcome("running", reason="timeout", quiet_for=quiet)
            if quiet >= limits.inactivity:
                return Outcome("running", reason="inactive", quiet_for=quiet)
            if quiet >= PROBE_AFTER and now >= probe_at:
                if self._waiting_for_input():
                    return Outcome(
                        "running", waiting_for_input=True, reason="input", quiet_for=quiet
                    )
                probe_at = now + PROBE_AFTER
            next_probe = max(last + PROBE_AFTER, probe_at)
            wake = min(deadline, last + limits.inactivity, next_probe) - now
            self._changed.clear()
            await wait_event(self._changed, wake)

    def _waiting_for_input(self) -> bool:
        try:
            pgid = os.tcgetpgrp(self._master)
        except OSError:
            return False
        return reading_terminal(pgid, self.tty, polling_counts=not self._ends_line)

    # -- ending -------------------------------------------------------------------------

    def kill_now(self) -> list[int]:
        """Kill the shell and everything it started, synchronously (also at interpreter exit)."""
        return kill_tree(self.pid, self.tag, pgid=self.pid)

    def _dispose(self) -> list[int]:
        """Stop reading, kill everything, release the descriptors (synchronous part)."""
        if self._closed:
            return []
        self._closed = True
        if self._batch_timer is not None:
            self._batch_timer.cancel()
            self._batch_timer = None
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(self._master)
        killed = [p for p in self.kill_now() if p != self.pid]
        if self._watcher is not None:
            self._watcher.cancel()
        for fd in (self._master, self._slave, self._pipe):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.state = "dead"
        return killed

    async def close(self) -> list[int]:
        """Kill the shell and every process it started; returns the pids killed."""
        killed = self._dispose()
        with contextlib.suppress(TimeoutError, ProcessLookupError):
            await asyncio.wait_for(self.proc.wait(), 5.0)
        if self._watcher is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._watcher
        return killed
