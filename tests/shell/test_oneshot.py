"""One-shot commands: exit codes, signals, closed stdin, limits, nothing left behind."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from karyi.shell.manager import ShellManager
from tests.support.procs import marked

from .conftest import make_manager

S = "s1"


async def test_output_and_exit_code(manager: ShellManager) -> None:
    r = await manager.oneshot(S, "echo out; echo err >&2; exit 3")
    assert (r.outcome.exit_code, r.outcome.signal, r.outcome.timed_out) == (3, None, None)
    assert r.output.text == "out\nerr\n" and r.cwd == "."


async def test_signal_is_reported(manager: ShellManager) -> None:
    r = await manager.oneshot(S, "kill -TERM $$")
    assert (r.outcome.exit_code, r.outcome.signal) == (-15, "SIGTERM")


async def test_stdin_is_closed(manager: ShellManager) -> None:
    r = await manager.oneshot(S, "cat; read x || echo eof")
    assert (r.outcome.exit_code, r.output.text) == (0, "eof\n")


async def test_cwd_and_session_environment(manager: ShellManager, ws_root: Path) -> None:
    manager.set_env(S, "STAGE", "test")
    r = await manager.oneshot(
        S, 'pwd; echo "$STAGE $TERM $GIT_TERMINAL_PROMPT"', cwd=ws_root / "src"
    )
    assert r.output.text == f"{ws_root}/src\ntest dumb 0\n" and r.cwd == "src"


async def test_overall_limit_kills_the_whole_tree(
    manager: ShellManager, ws_root: Path, mark: str
) -> None:
    script = (
        "sh -c 'echo $$ > child.pid; exec sleep 300' &\n"
        "while [ ! -s child.pid ]; do sleep 0.01; done; echo started; wait"
    )
    r = await manager.oneshot(S, script, max_seconds=1)
    assert r.outcome.timed_out == "timeout" and r.outcome.signal == "SIGKILL"
    assert r.output.text == "started\n"
    assert (ws_root / "child.pid").read_text().strip().isdigit()
    assert marked(mark) == []  # no process this test started is left


async def test_silence_limit(ws_root: Path) -> None:
    m = make_manager(ws_root, oneShotIdleSeconds=0.5)
    try:
        r = await m.oneshot(S, "echo before; sleep 300")
        assert r.outcome.timed_out == "idle" and r.output.text == "before\n"
    finally:
        await m.close()


async def test_background_children_are_stopped_when_the_command_ends(
    manager: ShellManager, mark: str
) -> None:
    r = await manager.oneshot(S, "sleep 300 & echo $!")
    pid = int(r.output.text.split()[0])
    assert r.outcome.exit_code == 0 and r.outcome.stopped == [pid]
    assert marked(mark) == []


async def test_cancelling_kills_the_command(manager: ShellManager, mark: str) -> None:
    seen: asyncio.Queue[str] = asyncio.Queue()
    task = asyncio.create_task(manager.oneshot(S, "echo pid $$; sleep 300", mirror=seen.put_nowait))
    m = re.search(r"pid (\d+)", await seen.get())
    assert m
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert marked(mark) == []


async def test_long_output_is_cut_and_kept(ws_root: Path) -> None:
    m = make_manager(ws_root, outputLimit=1000)
    try:
        r = await m.oneshot(S, "seq 1 50000")
        assert r.output.omitted_lines > 49000 and r.output.path == ".karyi/tmp/s1/run-1.log"
        assert (ws_root / r.output.path).read_text().endswith("49999\n50000\n")
    finally:
        await m.close()
