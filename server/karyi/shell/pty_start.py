"""Starting one interactive bash on a pseudo-terminal, for `pty_session.PtyShell`.

Bash is interactive (job control, so Ctrl-C reaches only the foreground job) and its
PROMPT_COMMAND does two things after every command: it prints a marker
`\\x1f<nonce>;<exit code>;<cwd>\\x1f` (the nonce is random per shell and never appears
whole in anything bash echoes), then it blocks reading the next script from a private
pipe (`read -d '' -u FD`). The terminal has echo and output post-processing off; the
shell runs under the sandbox's argv when there is one (bwrap passes the pipe through).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import secrets
import struct
import termios
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from karyi.shell.procs import TAG_VAR
from karyi.shell.signals import default_signals

ROWS, COLS = 50, 200


class ShellStartError(Exception):
    """The shell did not start or did not answer the handshake."""


@dataclass(frozen=True)
class Spawned:
    """A shell just started: its process, descriptors and marker nonce."""

    proc: asyncio.subprocess.Process
    master: int
    slave: int
    pipe: int
    """Our end of the private pipe the scripts go through."""
    fd: int
    """The shell's descriptor number of that pipe."""
    nonce: str


async def spawn_shell(
    *,
    shell: str,
    cwd: Path,
    env: Mapping[str, str],
    tag: str,
    prefix: Sequence[str] = (),
) -> Spawned:
    """Start `shell` on a new pty in `cwd` (under `prefix`, the sandbox's argv, if any)."""
    master, slave = os.openpty()
    read_end, write_end = os.pipe()
    nonce = secrets.token_hex(8)
    configure_terminal(slave)
    full_env = {
        **env,
        "PS1": "",
        "PS2": "",
        "PROMPT_COMMAND": _prompt_command(nonce, read_end),
        "HISTFILE": "",
        TAG_VAR: tag,
    }
    try:
        proc = await asyncio.create_subprocess_exec(
            *prefix,
            shell,
            "--norc",
            "--noprofile",
            "--noediting",
            "-i",
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=str(cwd),
            env=full_env,
            start_new_session=True,
            preexec_fn=_controlling_tty,
            pass_fds=(read_end,),
        )
    except OSError as exc:
        for fd in (master, slave, read_end, write_end):
            os.close(fd)
        raise ShellStartError(f"cannot start {shell}: {exc.strerror or exc}") from None
    os.close(read_end)
    return Spawned(proc, master, slave, write_end, read_end, nonce)


def _controlling_tty() -> None:  # runs in the child between fork and exec
    default_signals()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _prompt_command(nonce: str, fd: int) -> str:
    half = len(nonce) // 2
    return (
        f'printf \'\\037%s%s;%s;%s\\037\' {nonce[:half]} {nonce[half:]} "$?" "$PWD"; '
        "export -n PROMPT_COMMAND PS1 PS2 2>/dev/null; "
        f"readonly PROMPT_COMMAND {TAG_VAR} KARYI_AGENT_SHELL 2>/dev/null; "
        f"IFS= read -r -d '' -u {fd} __karyi_c"
    )


def configure_terminal(fd: int) -> None:
    """Echo and output post-processing off, the window size set."""
    attrs = termios.tcgetattr(fd)
    # No output post-processing: with OPOST the kernel turns each LF into CRLF one
    # character at a time, which costs a loud command many times its own run time
    # (docs/architecture.md#the-terminal); the output is cleaned of CRs anyway.
    attrs[1] &= ~termios.OPOST
    attrs[3] &= ~(termios.ECHO | termios.ECHONL)
    termios.tcsetattr(fd, termios.TCSANOW, attrs)
    with contextlib.suppress(OSError):
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
