"""Run a program to completion with input on stdin and stdout, stderr captured apart.

What the discovery and call commands need (`tools/discovery.py`): unlike
`oneshot`, the program reads its input from stdin, and stderr is kept apart so it can
be reported as such. It runs as `bash -c` in a new session; at the time limit, on
cancellation, or when it exits, everything it started is killed (by session id and by
tag, see `procs`). Output beyond the cap is dropped and counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from karyi.shell.procs import TAG_VAR, kill_tree
from karyi.shell.signals import default_signals

OUTPUT_CAP = 1_000_000


@dataclass(frozen=True)
class Captured:
    """How the program ended and what it printed."""

    stdout: str
    stderr: str
    exit_code: int | None
    signal: str | None = None
    timed_out: bool = False
    dropped: int = 0


async def _drain(stream: asyncio.StreamReader, out: bytearray) -> int:
    dropped = 0
    while chunk := await stream.read(65536):
        room = OUTPUT_CAP - len(out)
        out += chunk[:room]
        dropped += max(0, len(chunk) - room)
    return dropped


async def capture(
    command: str,
    *,
    stdin: bytes = b"",
    cwd: Path,
    env: Mapping[str, str],
    seconds: float,
    shell: str = "bash",
) -> Captured:
    """Run `command` (see the module docstring)."""
    tag = f"capture-{secrets.token_hex(6)}"
    proc = await asyncio.create_subprocess_exec(
        shell,
        "-c",
        command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=str(cwd),
        env={**env, TAG_VAR: tag},
        start_new_session=True,
        preexec_fn=default_signals,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out, err = bytearray(), bytearray()
    timed_out = False
    try:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.write(stdin)
            await proc.stdin.drain()
        proc.stdin.close()
        readers = asyncio.gather(_drain(proc.stdout, out), _drain(proc.stderr, err), proc.wait())
        try:
            async with asyncio.timeout(seconds):
                dropped_out, dropped_err, _ = await readers
        except TimeoutError:
            timed_out = True
            dropped_out = dropped_err = 0
    finally:
        kill_tree(proc.pid, tag, pgid=proc.pid)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
    code = proc.returncode
    sig = signal.Signals(-code).name if code is not None and code < 0 else None
    return Captured(
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
        None if timed_out else code,
        "SIGKILL" if timed_out else sig,
        timed_out,
        dropped_out + dropped_err,
    )
