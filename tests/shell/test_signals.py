"""Commands start with default signal dispositions and mask, whatever Karyi inherited:
Karyi runs here with SIGINT ignored and SIGUSR1 blocked (as `make test &` in a script
leaves it), and Ctrl-C still reaches the terminal's command, in and out of the sandbox
(docs/security.md, "Commands")."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from karyi.shell.sandbox import probe

SCENARIO = r"""
import asyncio, copy, json, re, sys
from pathlib import Path
from karyi.settings import DEFAULTS, Settings
from karyi.shell.manager import ShellManager
from karyi.workspace.workspace import Workspace

STATUS = "grep -E '^Sig(Ign|Blk)' /proc/self/status"

async def main(root: Path, mode: str) -> None:
    values = copy.deepcopy(DEFAULTS)
    values["shell"].update(inactivitySeconds=0.5)
    values["shell"]["sandbox"]["mode"] = mode
    values["permissions"]["commands"]["allow"] = ["*"]
    m = ShellManager(Workspace.open(root), Settings(values))
    try:
        term = (await m.command("s", STATUS)).output.text
        one = (await m.oneshot("s", STATUS)).output.text
        r = await m.command("s", "sleep 100")
        interrupted = await m.send("s", b"\x03") if r.state == "running" else r
        print(json.dumps({"terminal": term, "oneshot": one,
                          "ctrl_c": [interrupted.state, interrupted.exit_code]}))
    finally:
        await m.close()

asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
"""


def _as_inherited_by_a_background_job() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})


MODES = [
    "off",
    pytest.param("on", marks=pytest.mark.skipif(probe() is not None, reason="no bwrap")),
]


RESERVED = (1 << 31) | (1 << 32)
"""Signals 32 and 33 as bits of /proc's SigIgn mask (bit n-1 is signal n)."""


@pytest.mark.parametrize("mode", MODES)
def test_commands_get_default_signals_and_ctrl_c_works(ws_root: Path, mode: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCENARIO, str(ws_root), mode],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_as_inherited_by_a_background_job,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    for where in ("terminal", "oneshot"):
        blocked, ignored = (int(v, 16) for v in seen[where].split()[1::2])
        # 32 and 33 belong to the C library's threads: no program can set them (glibc
        # installs its own handlers at start), and a parent may leave them ignored.
        assert (blocked, ignored & ~RESERVED) == (0, 0), (where, seen)
    assert seen["ctrl_c"] == ["done", 130]
