"""One session's terminal over time: its current shell, the command being reported, and
what happens between calls (a command that ended unseen, a shell that exited).

`PtyShell` is one bash process; a `Terminal` outlives it: when the shell exits, the exit
is reported and the next command starts a fresh one, said as such. Calls are serialised
by a lock, so a `command`, `input` and `ctrl` never interleave on the same terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.shell.output import OutputLog, Report
from karyi.shell.procs import kill_group
from karyi.shell.pty_session import Limits, Outcome, PtyShell

Mirror = Callable[[str], None]
StartShell = Callable[[int], Awaitable[PtyShell]]
NewLog = Callable[[], OutputLog]
ShowPath = Callable[[str], str]

FRESH = (
    "This is a fresh shell: the working directory, shell variables and functions of the "
    "previous one are gone (variables set with set_env_variable are kept)."
)
NOT_RUN = (
    "The previous command is still running, so your command was NOT run. Answer it with "
    "input, stop it with ctrl (c), or send an empty command to keep waiting."
)


@dataclass(frozen=True)
class TerminalResult:
    """What one terminal call produced."""

    state: str
    output: Report
    exit_code: int | None = None
    cwd: str | None = None
    waiting_for_input: bool = False
    quiet_for: float = 0.0
    notes: tuple[str, ...] = ()
    previous: TerminalResult | None = None


def _noted(result: TerminalResult, *notes: str) -> TerminalResult:
    return replace(result, notes=(*notes, *result.notes))


class Terminal:
    """A session's persistent terminal (see the module docstring)."""

    def __init__(self, start: StartShell, new_log: NewLog, show: ShowPath) -> None:
        self._start = start
        self._new_log = new_log
        self._show = show
        self.shell: PtyShell | None = None
        self._log: OutputLog | None = None
        self._lock = asyncio.Lock()
        self._shells = 0

    @property
    def running(self) -> bool:
        """A command is running."""
        return self.shell is not None and self.shell.busy

    async def _ready_shell(self, notes: list[str]) -> PtyShell:
        if self.shell is not None and self.shell.alive:
            return self.shell
        if self.shell is not None:
            notes.append(await self._retire())
        self._shells += 1
        self.shell = await self._start(self._shells)
        if self._shells > 1:
            notes.append(FRESH)
        return self.shell

    async def _retire(self) -> str:
        """Close a shell that exited; say what happened."""
        assert self.shell is not None
        code = self.shell.exit_code
        stopped = await self.shell.close()
        self.shell = None
        said = f"The shell exited (exit code {code})."
        if stopped:
            said += f" {len(stopped)} process(es) it left running were stopped."
        return said

    async def command(
        self, script: str, limits: Limits, mirror: Mirror | None, exports: dict[str, str]
    ) -> TerminalResult:
        """Run `script`; an empty script waits for the running command.

        A command still running is waited for first (within `limits`); if it still runs,
        `script` is not run and the result says so. A command that finished since the
        last call is reported as `previous`. `exports` (environment changes not yet
        applied) are exported first, and emptied.
        """
        async with self._lock:
            previous = await self._pending(limits, mirror)
            if previous is not None and previous.state == "running":
                return _noted(previous, NOT_RUN) if script.strip() else previous
            if not script.strip():
                return previous or TerminalResult("idle", Report("(no command is running)"))
            notes: list[str] = []
            shell = await self._ready_shell(notes)
            prefix = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in exports.items())
            exports.clear()
            self._log = self._new_log()
            idle = shell.take_idle_output()
            if idle:
                self._log.feed(f"[printed in the background since the last command]\n{idle}\n")
            result = await self._guarded(shell.run(prefix + script, self._log, limits, mirror))
            return replace(_noted(result, *notes), previous=previous)

    async def send(self, data: bytes, limits: Limits, mirror: Mirror | None) -> TerminalResult:
        """Type `data` to the running command; refused when nothing runs."""
        async with self._lock:
            shell = self.shell
            if shell is None or not shell.busy:
                ended = await self._pending(limits, mirror)
                said = "no command is running in the terminal, so nothing was sent"
                if ended is not None:
                    said += (
                        f"; the last command already ended ({ended.state}, exit code "
                        f"{ended.exit_code}), its last output:\n{ended.output.text}"
                    )
                raise ToolFailure(ErrorCode.CONFLICT, said)
            sent = 0

            async def typed() -> Outcome:
                nonlocal sent
                sent, outcome = await shell.send(data, limits, mirror)
                return outcome

            result = await self._guarded(typed())
            if sent < len(data):
                return _noted(
                    result,
                    f"Only {sent} of {len(data)} bytes were accepted: the program is not "
                    "reading its input.",
                )
            return result

    async def _pending(self, limits: Limits, mirror: Mirror | None) -> TerminalResult | None:
        """The command not fully reported yet: waited for if running, else its end."""
        shell = self.shell
        if shell is None or self._log is None:
            return None
        if shell.busy:
            return await self._guarded(shell.wait(limits, mirror))
        if shell.alive:
            code, cwd = shell.last_result
            return await self._report(Outcome("done", code, cwd))
        return await self._report(Outcome("exited", exit_code=shell.exit_code))

    async def _guarded(self, call: Awaitable[Outcome]) -> TerminalResult:
        """Await a shell call; on cancellation stop the running job, then re-raise."""
        try:
            outcome = await call
        except asyncio.CancelledError:
            if self.shell is not None:
                _interrupt(self.shell)
            raise
        return await self._report(outcome)

    async def _report(self, outcome: Outcome) -> TerminalResult:
        log = self._log
        output = log.take() if log is not None else Report("")
        if outcome.state == "running":
            return TerminalResult(
                "running",
                output,
                waiting_for_input=outcome.waiting_for_input,
                quiet_for=outcome.quiet_for,
            )
        if log is not None:
            log.close()
            self._log = None
        if outcome.state == "exited":
            note = await self._retire()
            return TerminalResult(
                "exited",
                output,
                exit_code=outcome.exit_code,
                notes=(note + " The next command will start a fresh shell.",),
            )
        cwd = self._show(outcome.cwd) if outcome.cwd else None
        return TerminalResult("done", output, exit_code=outcome.exit_code, cwd=cwd)

    async def close(self) -> None:
        """Close the shell (killing everything it started) and the output file."""
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.shell is not None:
            await self.shell.close()

    def kill_now(self) -> None:
        """Kill the shell's processes synchronously (interpreter exit)."""
        if self.shell is not None:
            with contextlib.suppress(Exception):
                self.shell.kill_now()


def _interrupt(shell: PtyShell) -> None:
    """Stop the foreground job of a terminal whose call was cancelled."""
    with contextlib.suppress(OSError):
        pgid = os.tcgetpgrp(shell.master)
        if pgid != shell.pid:
            kill_group(pgid)
        else:
            os.write(shell.master, b"\x03")
