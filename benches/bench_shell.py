"""The terminal, one-shot commands, output handling and redaction (issue [shell]).

Each figure is compared with a baseline measured in the same run:
- terminal round trip: a trivial command in the persistent pty vs starting a fresh
  `bash -c` per command (what a tool without a persistent shell pays);
- one-shot overhead: `ShellManager.oneshot` (new session, tag, output log, cleanup
  scan of /proc) vs a bare asyncio subprocess;
- output throughput: 2,000,000 lines through the pty, cleaned and cut, vs the same
  output read raw from a pipe;
- redaction: 8 MiB of output against 20 secrets in all their encodings vs a plain
  `str.replace` of the 20 raw values;
- command rules: judging a 12-command line;
- the sandbox (bubblewrap): a one-shot round trip, a terminal round trip and a terminal
  start, sandboxed vs plain, as ratios in one run.
"""

from __future__ import annotations

import asyncio
import copy
import random
import string
import tempfile
import time
from pathlib import Path

from karyi.secrets.redact import Redactor
from karyi.settings import DEFAULTS, Settings
from karyi.shell.manager import ShellManager
from karyi.shell.rules import CommandRules
from karyi.workspace.workspace import Workspace

ROUNDS = 200


def report(line: str) -> None:
    print(line, flush=True)


def _manager(root: Path, sandbox: str = "auto") -> ShellManager:
    values = copy.deepcopy(DEFAULTS)
    values["shell"]["inactivitySeconds"] = 60
    values["shell"]["sandbox"]["mode"] = sandbox
    return ShellManager(Workspace.open(root), Settings(values))


async def _spawn(*argv: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    await proc.communicate()


async def terminal_vs_fresh(root: Path) -> None:
    m = _manager(root, "off")  # the sandbox has its own figures below
    try:
        await m.command("b", "true")
        t = time.perf_counter()
        for _ in range(ROUNDS):
            await m.command("b", "true")
        pty_ms = (time.perf_counter() - t) / ROUNDS * 1000
        t = time.perf_counter()
        for _ in range(ROUNDS):
            await _spawn("bash", "-c", "true")
        fresh_ms = (time.perf_counter() - t) / ROUNDS * 1000
        t = time.perf_counter()
        for _ in range(ROUNDS // 4):
            await m.oneshot("b", "true")
        oneshot_ms = (time.perf_counter() - t) / (ROUNDS // 4) * 1000
    finally:
        await m.close()
    report(f"terminal command round trip   {pty_ms:8.2f} ms")
    report(f"fresh `bash -c` per command   {fresh_ms:8.2f} ms   ({fresh_ms / pty_ms:.1f}x slower)")
    report(
        f"one-shot (tag, log, cleanup)  {oneshot_ms:8.2f} ms   "
        f"({oneshot_ms / fresh_ms:.2f}x a bare subprocess)"
    )


async def throughput(root: Path) -> None:
    lines = 2_000_000
    m = _manager(root, "off")  # the sandbox has its own figures below
    try:
        t = time.perf_counter()
        r = await m.command("b", f"seq 1 {lines}")
        pty_s = time.perf_counter() - t
    finally:
        await m.close()
    assert r.state == "done", r
    size = r.output.omitted_chars + len(r.output.text)
    t = time.perf_counter()
    await _spawn("seq", "1", str(lines))
    raw_s = time.perf_counter() - t
    report(
        f"pty output, cleaned + cut     {size / pty_s / 1e6:8.1f} MB/s "
        f"({size / 1e6:.1f} MB in {pty_s:.2f} s; raw pipe {size / raw_s / 1e6:.0f} MB/s, "
        f"{pty_s / raw_s:.1f}x)"
    )


def redaction() -> None:
    rnd = random.Random(7)
    alphabet = string.ascii_letters + string.digits
    secrets = {f"S{i}": "".join(rnd.choices(alphabet, k=24)) for i in range(20)}
    words = ["build", "ok", "error:", "src/main.py", "12.5s", "warning", "\n"]
    text = " ".join(rnd.choices(words, k=1_400_000))
    text = text[: 8 * 1024 * 1024]
    redactor = Redactor(secrets)
    t = time.perf_counter()
    redactor.redact(text)
    ours = time.perf_counter() - t
    t = time.perf_counter()
    plain = text
    for value in secrets.values():
        plain = plain.replace(value, "x")
    base = time.perf_counter() - t
    mb = len(text) / 1e6
    report(
        f"redaction, 20 secrets x all encodings  {mb / ours:8.1f} MB/s   "
        f"(str.replace of the raw values {mb / base:.0f} MB/s, {ours / base:.1f}x)"
    )


def rules() -> None:
    r = CommandRules(allow=["git *", "ls *", "grep *", "echo *"], deny=["rm *"])
    line = "git status && ls -la | grep x; echo $(git rev-parse HEAD) > /dev/null; " * 3
    n = 300
    t = time.perf_counter()
    for _ in range(n):
        r.evaluate(line)
    us = (time.perf_counter() - t) / n * 1e6
    report(f"command rules, 12-command line   {us:8.0f} us per line")


async def _timings(root: Path, sandbox: str) -> tuple[float, float, float]:
    """(one-shot, terminal round trip, terminal start) in ms with `sandbox` mode."""
    m = _manager(root, sandbox)
    try:
        await m.oneshot("w", "true")
        t = time.perf_counter()
        for _ in range(ROUNDS // 4):
            await m.oneshot("w", "true")
        oneshot_ms = (time.perf_counter() - t) / (ROUNDS // 4) * 1000
        await m.command("w", "true")
        t = time.perf_counter()
        for _ in range(ROUNDS):
            await m.command("w", "true")
        pty_ms = (time.perf_counter() - t) / ROUNDS * 1000
        starts = 20
        t = time.perf_counter()
        for i in range(starts):
            await m.command(f"start{i}", "true")
            await m.close(f"start{i}")
        start_ms = (time.perf_counter() - t) / starts * 1000
    finally:
        await m.close()
    return oneshot_ms, pty_ms, start_ms


async def sandbox_vs_plain(root: Path) -> None:
    plain = await _timings(root, "off")
    if _manager(root).sandbox_problem is not None:
        report(f"sandbox: not measured ({_manager(root).sandbox_problem})")
        return
    boxed = await _timings(root, "on")
    names = ("one-shot round trip", "terminal round trip", "terminal start (+ close)")
    for name, p, b in zip(names, plain, boxed, strict=True):
        report(f"sandboxed {name:26} {b:8.2f} ms vs plain {p:8.2f} ms   ({b / p:.2f}x)")


def main() -> None:
    """Print every figure."""
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(terminal_vs_fresh(Path(tmp)))
        asyncio.run(throughput(Path(tmp)))
        asyncio.run(sandbox_vs_plain(Path(tmp)))
    redaction()
    rules()


if __name__ == "__main__":
    main()
