"""The shells of every agent session: one persistent terminal each, one-shot commands,
the session's environment changes, its output files, and the cleanup.

A front end creates one `ShellManager`, puts it in the `ToolContext`, and closes it when
it ends; the manager also kills everything at interpreter exit, in case the front end
could not. Terminals start lazily on a session's first command, in the workspace root.
Output files live in `<workspace>/.karyi/tmp/<session>/` (a folder that git ignores):
inside the workspace, so every profile's read tools can open the path a result names.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import secrets
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.secrets.vault import Vault
from karyi.settings import Settings
from karyi.shell.child_env import FIXED_ENV, HIDDEN_ENV
from karyi.shell.netproxy import DomainPolicy, SandboxProxy, blocked_note
from karyi.shell.oneshot import OneShotOutcome, run_oneshot
from karyi.shell.output import OutputLog, Report
from karyi.shell.procs import kill_tree
from karyi.shell.pty_session import Limits, PtyShell
from karyi.shell.pty_start import ShellStartError
from karyi.shell.sandbox import (
    SANDBOX_TMP,
    SandboxPlan,
    bwrap_argv,
    default_hidden,
    find_bwrap,
    probe,
    protected_paths,
    scratch_dir,
)
from karyi.shell.terminal import Mirror, Terminal, TerminalResult
from karyi.workspace.paths import SYSTEM_DIRS, within
from karyi.workspace.workspace import Workspace

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
TMP_DIR = Path(".karyi") / "tmp"


@dataclass(frozen=True)
class OneShotResult:
    """What one one-shot command produced."""

    outcome: OneShotOutcome
    output: Report
    cwd: str
    sandboxed: bool = False


@dataclass
class _Session:
    tag: str
    terminal: Terminal
    env: dict[str, str] = field(default_factory=dict)
    pending: dict[str, str] = field(default_factory=dict)
    counter: int = 0
    tmp_ready: bool = False
    scratch: Path | None = None
    terminal_sandboxed: bool = False
    proxy: SandboxProxy | None = None


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
            terminal = Terminal(
                lambda number: self._start_shell(sid, number),
                lambda: self._new_log(sid, "cmd"),
                lambda cwd: self.workspace.display(Path(cwd)),
            )
            self._sessions[sid] = _Session(secrets.token_hex(6), terminal)
        return self._sessions[sid]

    @property
    def shell_path(self) -> str:
        """The shell binary (settings `shell.path`, else bash)."""
        wanted = self.settings.shell.path or "bash"
        found = shutil.which(wanted)
        if not found:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR, f"shell {wanted!r} not found (settings shell.path)"
            )
        return found

    def env(self, sid: str) -> dict[str, str]:
        """The environment commands of session `sid` get."""
        hidden = {*HIDDEN_ENV, self.settings.api_key_env or ""}
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
        if name.startswith("KARYI_"):
            raise ToolFailure(
                ErrorCode.PERMISSION_DENIED, f"name: {name} is reserved for Karyi itself"
            )
        if "\0" in value:
            raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, "value: cannot contain NUL")
        session = self._session(sid)
        session.env[name] = value
        session.pending[name] = value

    def tmp_dir(self, sid: str) -> Path:
        """Where the session's output files go."""
        safe = re.sub(r"[^A-Za-z0-9_-]", "_", sid)[:64] or "session"  # no dots: no ".."
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
            self.settings.shell.output_limit,
            redactor,
            shown=self.workspace.display(path),
            prepare=lambda: self._prepare_tmp(sid),
        )

    def _limits(self, max_seconds: float | None) -> Limits:
        overall = max_seconds or self.settings.shell.timeout_seconds
        return Limits(overall, min(self.settings.shell.inactivity_seconds, overall))

    # -- the sandbox (see shell/sandbox.py) ------------------------------------------------

    @property
    def sandbox_problem(self) -> str | None:
        """Why commands run unsandboxed; None when they run in the sandbox."""
        if self.settings.shell.sandbox.mode == "off":
            return "the sandbox is off in the settings (shell.sandbox.mode)"
        return probe()

    @property
    def sandboxed(self) -> bool:
        """Whether commands run in the sandbox (unless a call asks to leave it)."""
        return self.sandbox_problem is None

    def sandbox_notice(self) -> str | None:
        """What the user must be told once per session: `auto` found no working sandbox."""
        problem = self.sandbox_problem
        if problem is None or self.settings.shell.sandbox.mode != "auto":
            return None
        return f"commands run WITHOUT the OS sandbox: {problem}"

    def _writable_roots(self) -> list[Path]:
        """The workspace roots and `shell.sandbox.writable`, minus any that holds or lies
        in a system directory (an allowed root `/` must not make the system writable)."""
        roots = [*self.workspace.policy.roots, *map(Path, self.settings.sandbox_writable)]
        out: list[Path] = []
        for root in roots:
            text = os.path.realpath(root)
            if not any(within(text, d) or within(d, text) for d in SYSTEM_DIRS):
                out.append(Path(text))
        return out

    def _leftovers(self, sid: str) -> tuple[str, Path] | None:
        """Where a sandboxed one-shot lists what still ran at its end (see `run_oneshot`):
        in the session's private temp, inside and outside the sandbox."""
        session = self._session(sid)
        if session.scratch is None:
            return None
        name = f".karyi-leftovers-{session.counter}"
        return f"{SANDBOX_TMP}/{name}", session.scratch / "tmp" / name

    def _sandbox_prefix(self, sid: str, cwd: Path, *, pty: bool) -> list[str]:
        """The bwrap argv that wraps a command of session `sid`; empty when unsandboxed."""
        problem = self.sandbox_problem
        if problem is not None:
            if self.settings.shell.sandbox.mode == "on":
                raise ToolFailure(
                    ErrorCode.TOOL_ERROR,
                    f"the sandbox is required (settings shell.sandbox.mode: on) but {problem}",
                )
            return []
        session = self._session(sid)
        if session.scratch is None or not session.scratch.is_dir():
            session.scratch = scratch_dir()
        writable = self._writable_roots()
        plan = SandboxPlan(
            writable=tuple(writable),
            scratch=session.scratch,
            hidden=tuple(default_hidden()),
            network=self.settings.shell.sandbox.network,
            protected=tuple(protected_paths([self.workspace.root], writable)),
            proxy_socket=self._proxy_socket(session),
        )
        bwrap = find_bwrap()
        assert bwrap is not None  # the probe found it
        # No --new-session for the pty: setsid() would cut bash from its terminal, and job
        # control (Ctrl-C to the foreground job only) with it. The pty is Karyi's own, so
        # a command pushing keystrokes into it (TIOCSTI) only reaches its own shell.
        return bwrap_argv(bwrap, plan, cwd, new_session=not pty)

    def _proxy_socket(self, session: _Session) -> Path | None:
        """The network allowlist's proxy of the session, started with its sandbox; None
        when `shell.sandbox.allowedDomains` is empty or the network is whole."""
        box = self.settings.shell.sandbox
        if box.network or not box.allowed_domains or session.scratch is None:
            return None
        if session.proxy is None:
            policy = DomainPolicy(tuple(box.allowed_domains), tuple(box.denied_domains))
            session.proxy = SandboxProxy(policy, session.scratch / "proxy.sock")
            session.proxy.start()
        return session.proxy.socket_path

    def take_blocked(self, sid: str) -> str | None:
        """What the proxy refused since the session's last command, as a note."""
        session = self._sessions.get(sid)
        hosts = session.proxy.take_blocked() if session and session.proxy else []
        return blocked_note(hosts) if hosts else None

    # -- the terminal ---------------------------------------------------------------------

    def running(self, sid: str) -> bool:
        """Whether session `sid` has a command running in its terminal."""
        session = self._sessions.get(sid)
        return bool(session and session.terminal.running)

    async def command(
        self,
        sid: str,
        script: str,
        *,
        max_seconds: float | None = None,
        mirror: Mirror | None = None,
    ) -> TerminalResult:
        """Run `script` in the session's terminal (see `Terminal.command`)."""
        session = self._session(sid)
        result = await session.terminal.command(
            script, self._limits(max_seconds), mirror, session.pending
        )
        note = self.take_blocked(sid)
        return replace(result, notes=(*result.notes, note)) if note else result

    async def send(self, sid: str, data: bytes, *, mirror: Mirror | None = None) -> TerminalResult:
        """Type `data` to the command running in the session's terminal."""
        return await self._session(sid).terminal.send(data, self._limits(None), mirror)

    def terminal_sandboxed(self, sid: str) -> bool:
        """Whether the session's terminal (the one running now) is sandboxed."""
        return self._session(sid).terminal_sandboxed

    def terminal_cwd(self, sid: str) -> Path:
        """The terminal's working directory after its last command (else the root)."""
        shell = self._session(sid).terminal.shell
        cwd = shell.last_result[1] if shell is not None and shell.alive else ""
        return Path(cwd) if cwd and Path(cwd).is_dir() else self.workspace.root

    async def _start_shell(self, sid: str, number: int) -> PtyShell:
        session = self._session(sid)
        prefix = self._sandbox_prefix(sid, self.workspace.root, pty=True)
        env = self.env(sid)
        if prefix:
            env = {**env, "TMPDIR": SANDBOX_TMP}
        try:
            shell = await PtyShell.start(
                shell=self.shell_path,
                cwd=self.workspace.root,
                env=env,
                tag=f"{session.tag}:pty{number}",
                prefix=prefix,
            )
        except ShellStartError as exc:
            raise ToolFailure(ErrorCode.TOOL_ERROR, str(exc)) from None
        session.pending.clear()
        session.terminal_sandboxed = bool(prefix)
        return shell

    # -- one-shot commands ----------------------------------------------------------------

    async def oneshot(
        self,
        sid: str,
        command: str,
        *,
        cwd: Path | None = None,
        max_seconds: float | None = None,
        mirror: Mirror | None = None,
        sandbox: bool = True,
    ) -> OneShotResult:
        """Run `command` alone (see `oneshot.run_oneshot`); `sandbox=False` runs it
        outside the sandbox (a call the user approved as such)."""
        session = self._session(sid)
        where = cwd or self.workspace.root
        prefix = self._sandbox_prefix(sid, where, pty=False) if sandbox else []
        log = self._new_log(sid, "run")
        env = {**self.env(sid), "GIT_TERMINAL_PROMPT": "0"}
        if prefix:
            env["TMPDIR"] = SANDBOX_TMP
        if not where.is_dir():
            log.close()
            raise ToolFailure(
                ErrorCode.NOT_FOUND, f"cwd: {self.workspace.display(where)} does not exist"
            )
        try:
            outcome = await run_oneshot(
                command,
                shell=self.shell_path,
                cwd=where,
                env=env,
                tag=f"{session.tag}:run{session.counter}",
                log=log,
                overall=max_seconds or self.settings.shell.timeout_seconds,
                idle=self.settings.shell.one_shot_idle_seconds,
                mirror=mirror,
                prefix=prefix,
                leftovers=self._leftovers(sid) if prefix else None,
            )
        except FileNotFoundError:
            raise ToolFailure(
                ErrorCode.NOT_FOUND, f"cwd: {self.workspace.display(where)} does not exist"
            ) from None
        finally:
            log.close()
        report = log.take()
        if note := self.take_blocked(sid):
            report = replace(report, text=f"{report.text.rstrip()}\n[{note}]".lstrip())
        return OneShotResult(outcome, report, self.workspace.display(where), bool(prefix))

    # -- ending ---------------------------------------------------------------------------

    async def close(self, sid: str | None = None) -> None:
        """End session `sid` (or every session): kill its shell and everything it started."""
        for name in [sid] if sid is not None else list(self._sessions):
            session = self._sessions.pop(name, None)
            if session is None:
                continue
            await session.terminal.close()
            kill_tree(None, f"{session.tag}:")
            if session.proxy is not None:
                await session.proxy.close()
            if session.scratch is not None:
                shutil.rmtree(session.scratch, ignore_errors=True)
        if sid is None:
            self._closed = True
            atexit.unregister(self.kill_all_now)

    def kill_all_now(self) -> None:
        """Kill every session's processes at once (interpreter exit, signal handlers)."""
        for session in self._sessions.values():
            session.terminal.kill_now()
            with contextlib.suppress(Exception):
                kill_tree(None, f"{session.tag}:")
            if session.scratch is not None:
                shutil.rmtree(session.scratch, ignore_errors=True)
