"""The shells of every agent session: one persistent terminal each, one-shot commands,
the session's environment changes, its output files, and the cleanup.

A front end creates one `ShellManager`, puts it in the `ToolContext`, and closes it when
it ends; the manager also kills everything at interpreter exit, in case the front end
could not. Terminals start lazily on a session's first command, in the workspace root.
Output files live in `<workspace>/.karyi/tmp/<session>/` (a folder that git ignores):
inside the workspace, so every profile's read tools can open the path a result names.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import re
import secrets
import shlex
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from karyi.secrets.vault import Vault
from karyi.settings import PROVIDER_KEY_ENV, Settings
from karyi.shell.oneshot import OneShotOutcome, run_oneshot
from karyi.shell.output import OutputLog, Report
from karyi.shell.procs import kill_group, kill_tree
from karyi.shell.pty_session import Limits, Outcome, PtyShell, ShellStartError
from karyi.tools.errors import ErrorCode, ToolFailure
from karyi.workspace.workspace import Workspace

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
TMP_DIR = Path(".karyi") / "tmp"
FIXED_ENV = {"TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat", "KARYI_AGENT_SHELL": "1"}
"""Set for every command: no pagers, no full-screen terminal features."""
HIDDEN_ENV = ("KARYI_API_KEY", *PROVIDER_KEY_ENV.values())
"""Karyi's own model credentials never reach a command."""

Mirror = Callable[[str], None]


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


@dataclass(frozen=True)
class OneShotResult:
    """What one one-shot command produced."""

    outcome: OneShotOutcome
    output: Report
    cwd: str


@dataclass
class _Session:
    tag: str
    env: dict[str, str] = field(default_factory=dict)
    pending: dict[str, str] = field(default_factory=dict)
    shell: PtyShell | None = None
    log: OutputLog | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    counter: int = 0
    shells: int = 0
    tmp_ready: bool = False


class ShellManager:
    """Terminals and one-shot commands per session (see the module docstring)."""

    def __init__(self, workspace: Workspace, settings: Settings, vault: Vault | None = None):
        self.workspace = workspace
        self.settings = settings
        self.vault = vault
        self._sessions: dict[str, _Session] = {}
        self._closed = False
        atexit.register(self.kill_all_now)

    # -- sessions, environment, files ------------------------------------------------------

    def _session(self, sid: str) -> _Session:
        if self._closed:
            raise ToolFailure(ErrorCode.TOOL_ERROR, "the shell manager is closed")
        if sid not in self._sessions:
            self._sessions[sid] = _Session(tag=secrets.token_hex(6))
        return self._sessions[sid]

    @property
    def shell_path(self) -> str:
        """The shell binary (settings `shell.path`, else bash)."""
        wanted = self.settings.shell_path or "bash"
        found = shutil.which(wanted)
        if not found:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR, f"shell {wanted!r} not found (settings shell.path)"
            )
        return found

    def env(self, sid: str) -> dict[str, str]:
        """The environment commands of session `sid` get."""
        hidden = {*HIDDEN_ENV, str(self.settings.values.get("apiKeyEnv") or "")}
        base = {k: v for k, v in os.environ.items() if k not in hidden}
        return {**base, **FIXED_ENV, **self._session(sid).env}

    def get_env(self, sid: str, name: str) -> str | None:
        """A variable as the session's commands see it (the session's own value first)."""
        return self.env(sid).get(name)

    def set_env(self, sid: str, name: str, value: str) -> None:
        """Set `name` for later commands of the session, the running terminal included."""
        if not ENV_NAME.match(name):
            raise ToolFailure(
                ErrorCode.INVALID_TOOL_INPUT,
                f"name: {name!r} is not a valid variable name (letters, digits, _)",
            )
        if "\0" in value:
            raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, "value: cannot contain NUL")
        session = self._session(sid)
        session.env[name] = value
        session.pending[name] = value

    def tmp_dir(self, sid: str) -> Path:
        """Where the session's output files go."""
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", sid)[:64] or "session"
        return self.workspace.root / TMP_DIR / safe

    def _prepare_tmp(self, sid: str) -> None:
        """Create the session folder, emptied of an earlier run's files, git-ignored."""
        session = self._session(sid)
        folder = self.tmp_dir(sid)
        if not session.tmp_ready:
            shutil.rmtree(folder, ignore_errors=True)
            session.tmp_ready = True
        folder.mkdir(parents=True, exist_ok=True)
        ignore = folder.parent / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# Karyi's command output files\n*\n", encoding="utf-8")

    def _new_log(self, sid: str, kind: str) -> OutputLog:
        session = self._session(sid)
        session.counter += 1
        path = self.tmp_dir(sid) / f"{kind}-{session.counter}.log"
        redactor = self.vault.redactor if self.vault is not None else None
        return OutputLog(
            path,
            self.settings.shell_output_limit,
            redactor,
            shown=self.workspace.display(path),
            prepare=lambda: self._prepare_tmp(sid),
        )

    def _limits(self, max_seconds: float | None) -> Limits:
        overall = max_seconds or self.settings.shell_timeout
        return Limits(overall, min(self.settings.shell_inactivity, overall))

    # -- the terminal ---------------------------------------------------------------------

    def running(self, sid: str) -> bool:
        """Whether session `sid` has a command running in its terminal."""
        session = self._sessions.get(sid)
        return bool(session and session.shell and session.shell.busy)

    async def _shell(self, sid: str, notes: list[str]) -> PtyShell:
        session = self._session(sid)
        if session.shell is not None and session.shell.alive:
            return session.shell
        if session.shell is not None:
            notes.append(await self._retire(session))
        session.shells += 1
        env = self.env(sid)
        try:
            shell = await PtyShell.start(
                shell=self.shell_path,
                cwd=self.workspace.root,
                env=env,
                tag=f"{session.tag}:pty{session.shells}",
            )
        except ShellStartError as exc:
            raise ToolFailure(ErrorCode.TOOL_ERROR, str(exc)) from None
        session.shell = shell
        session.pending.clear()
        if session.shells > 1:
            notes.append(
                "This is a fresh shell: the working directory, shell variables and functions "
                "of the previous one are gone (variables set with set_env_variable are kept)."
            )
        return shell

    async def _retire(self, session: _Session) -> str:
        """Close a shell that exited; say what happened."""
        assert session.shell is not None
        code = session.shell.exit_code
        stopped = await session.shell.close()
        session.shell = None
        said = f"The shell exited (exit code {code})."
        if stopped:
            said += f" {len(stopped)} process(es) it left running were stopped."
        return said

    async def command(
        self,
        sid: str,
        script: str,
        *,
        max_seconds: float | None = None,
        mirror: Mirror | None = None,
    ) -> TerminalResult:
        """Run `script` in the session's terminal; an empty script waits for the running one.

        A command still running is waited for first (within the limits); if it is still
        running after that, `script` is not run and the result says so. A command that
        finished since the last call is reported as `previous`.
        """
        session = self._session(sid)
        async with session.lock:
            limits = self._limits(max_seconds)
            previous = await self._pending(sid, limits, mirror)
            if previous is not None and previous.state == "running":
                return _with(previous, [], not_run=bool(script.strip()))
            if not script.strip():
                if previous is not None:
                    return previous
                return TerminalResult("idle", Report("(no command is running)"))
            notes: list[str] = []
            shell = await self._shell(sid, notes)
            exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in session.pending.items())
            session.pending.clear()
            session.log = self._new_log(sid, "cmd")
            idle = shell.take_idle_output()
            if idle:
                session.log.feed(f"[printed in the background since the last command]\n{idle}\n")
            run = shell.run(exports + script, session.log, limits, mirror)
            result = await self._guarded(sid, run)
            return _with(result, notes, previous=previous)

    async def _pending(
        self, sid: str, limits: Limits, mirror: Mirror | None
    ) -> TerminalResult | None:
        """The command not fully reported yet: waited for if running, else its end."""
        session = self._session(sid)
        shell = session.shell
        if shell is None or session.log is None:
            return None
        if shell.busy:
            return await self._guarded(sid, shell.wait(limits, mirror))
        if shell.alive:
            code, cwd = shell.last_result
            return await self._report(session, Outcome("done", code, cwd))
        return await self._report(session, Outcome("exited", exit_code=shell.exit_code))

    async def send(self, sid: str, data: bytes, *, mirror: Mirror | None = None) -> TerminalResult:
        """Type `data` to the command running in the session's terminal."""
        session = self._session(sid)
        async with session.lock:
            shell = session.shell
            if shell is None or not shell.busy:
                ended = await self._pending(sid, self._limits(None), mirror)
                said = "no command is running in the terminal, so nothing was sent"
                if ended is not None:
                    said += (
                        f"; the last command already ended ({ended.state}, exit code "
                        f"{ended.exit_code}), its last output:\n{ended.output.text}"
                    )
                raise ToolFailure(ErrorCode.CONFLICT, said)
            limits = self._limits(None)
            sent = 0

            async def go() -> Outcome:
                nonlocal sent
                sent, outcome = await shell.send(data, limits, mirror)
                return outcome

            result = await self._guarded(sid, go())
            if sent < len(data):
                note = (
                    f"Only {sent} of {len(data)} bytes were accepted: the program is not "
                    "reading its input."
                )
                result = _with(result, [note])
            return result

    async def _guarded(self, sid: str, call: Awaitable[Outcome]) -> TerminalResult:
        """Await a terminal call; on cancellation stop the running job, then re-raise."""
        session = self._session(sid)
        try:
            outcome = await call
        except asyncio.CancelledError:
            if session.shell is not None:
                _interrupt(session.shell)
            raise
        return await self._report(session, outcome)

    async def _report(self, session: _Session, outcome: Outcome) -> TerminalResult:
        log = session.log
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
            session.log = None
        if outcome.state == "exited":
            note = await self._retire(session)
            return TerminalResult(
                "exited",
                output,
                exit_code=outcome.exit_code,
                notes=(note + " The next command will start a fresh shell.",),
            )
        cwd = self.workspace.display(Path(outcome.cwd)) if outcome.cwd else None
        return TerminalResult("done", output, exit_code=outcome.exit_code, cwd=cwd)

    # -- one-shot commands ----------------------------------------------------------------

    async def oneshot(
        self,
        sid: str,
        command: str,
        *,
        cwd: Path | None = None,
        max_seconds: float | None = None,
        mirror: Mirror | None = None,
    ) -> OneShotResult:
        """Run `command` alone (see `oneshot.run_oneshot`)."""
        session = self._session(sid)
        log = self._new_log(sid, "run")
        where = cwd or self.workspace.root
        env = {**self.env(sid), "GIT_TERMINAL_PROMPT": "0"}
        try:
            outcome = await run_oneshot(
                command,
                shell=self.shell_path,
                cwd=where,
                env=env,
                tag=f"{session.tag}:run{session.counter}",
                log=log,
                overall=max_seconds or self.settings.shell_timeout,
                idle=self.settings.shell_oneshot_idle,
                mirror=mirror,
            )
        except FileNotFoundError:
            raise ToolFailure(
                ErrorCode.NOT_FOUND, f"cwd: {self.workspace.display(where)} does not exist"
            ) from None
        finally:
            log.close()
        return OneShotResult(outcome, log.take(), self.workspace.display(where))

    # -- ending ---------------------------------------------------------------------------

    async def close(self, sid: str | None = None) -> None:
        """End session `sid` (or every session): kill its shell and everything it started."""
        for name in [sid] if sid is not None else list(self._sessions):
            session = self._sessions.pop(name, None)
            if session is None:
                continue
            if session.log is not None:
                session.log.close()
            if session.shell is not None:
                await session.shell.close()
            kill_tree(None, f"{session.tag}:")
        if sid is None:
            self._closed = True
            atexit.unregister(self.kill_all_now)

    def kill_all_now(self) -> None:
        """Kill every session's processes at once (interpreter exit, signal handlers)."""
        for session in self._sessions.values():
            if session.shell is not None:
                with contextlib.suppress(Exception):
                    session.shell.kill_now()
            with contextlib.suppress(Exception):
                kill_tree(None, f"{session.tag}:")


def _interrupt(shell: PtyShell) -> None:
    """Stop the foreground job of a terminal whose call was cancelled."""
    with contextlib.suppress(OSError):
        pgid = os.tcgetpgrp(shell.master)
        if pgid != shell.pid:
            kill_group(pgid)
        else:
            os.write(shell.master, b"\x03")


def _with(
    result: TerminalResult,
    notes: list[str],
    *,
    previous: TerminalResult | None = None,
    not_run: bool = False,
) -> TerminalResult:
    extra = list(notes)
    if not_run:
        extra.append(
            "The previous command is still running, so your command was NOT run. Answer it "
            "with input, stop it with ctrl (c), or send an empty command to keep waiting."
        )
    return TerminalResult(
        result.state,
        result.output,
        result.exit_code,
        result.cwd,
        result.waiting_for_input,
        result.quiet_for,
        (*extra, *result.notes),
        previous if previous is not None else result.previous,
    )
