"""The terminal, one-shot commands, output handling and redaction (issue [shell]).

Each figure is compared with a baseline measured in the same run:
- terminal round trip: a trivial command in the persistent pty vs starting a fresh
  `bash -c` per command (what a tool without a persistent shell pays);
- one-shot overhead: `ShellManager.oneshot` (new session, tag, output log, cleanup
  scan of /proc) vs a bare asyncio subprocess;
- output throughput (issue [scale]): 2,000,000 lines (15 MB) through the terminal,
  cleaned, cut, logged and redacted against 20 secrets, vs a bare pty reading the same
  output with no processing, and vs a raw pipe; rounds alternate, medians are printed
  (target: within 1.5x of the bare pty);
- redaction: 8 MiB of output against 20 secrets in all their encodings vs a plain
  `str.replace` of the 20 raw values, median of several rounds (target: within 2x);
- command rules: judging a 12-command line;
- the sandbox (bubblewrap): a one-shot round trip, a terminal round trip and a terminal
  start, sandboxed vs plain, as ratios in one run.
"""

from __future__ import annotations

import asyncio
import copy
import os
import random
import statistics
import string
import tempfile
import time
from pathlib import Path

from karyi.secrets.redact import Redactor
from karyi.secrets.vault import Vault
from karyi.settings import DEFAULTS, Settings
from karyi.shell.manager import ShellManager
from karyi.shell.rules import CommandRules
from karyi.workspace.workspace import Workspace

ROUNDS = 200
LINES = 2_000_000
REPEATS = 5
SMOKE: dict[str, object] = {"ROUNDS": 8, "LINES": 2_000, "REPEATS": 1}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""


def report(line: str) -> None:
    print(line, flush=True)


def _secrets() -> dict[str, str]:
    rnd = random.Random(7)
    alphabet = string.ascii_letters + string.digits
    return {f"S{i}": "".join(rnd.choices(alphabet, k=24)) for i in range(20)}


def _manager(root: Path, sandbox: str = "auto", vault: Vault | None = None) -> ShellManager:
    values = copy.deepcopy(DEFAULTS)
    values["shell"]["inactivitySeconds"] = 60
    values["shell"]["sandbox"]["mode"] = sandbox
    return ShellManager(Workspace.open(root), Settings(values), vault)


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


async def _bare_pty(*argv: str) -> tuple[float, int]:
    """Seconds and bytes for `argv` on a pty read by an event-loop reader, no processing."""
    master, slave = os.openpty()
    os.set_blocking(master, False)
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    size = 0

    def on_readable() -> None:
        nonlocal size
        try:
            data = os.read(master, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(master)
            done.set_result(None)
        size += len(data)

    t = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(*argv, stdout=slave, stderr=slave)
    os.close(slave)
    loop.add_reader(master, on_readable)
    await done
    await proc.wait()
    os.close(master)
    return time.perf_counter() - t, size


async def _terminal_s(m: ShellManager) -> tuple[float, int]:
    t = time.perf_counter()
    r = await m.command("b", f"seq 1 {LINES}")
    seconds = time.perf_counter() - t
    assert r.state == "done", r
    return seconds, r.output.omitted_chars + len(r.output.text)


async def throughput(root: Path) -> None:
    vault = Vault()
    for name, value in _secrets().items():
        vault.remember(name, value)
    full = _manager(root, "off", vault)  # the sandbox has its own figures below
    plain = _manager(root, "off")
    ours: list[float] = []
    clean: list[float] = []
    bare: list[float] = []
    pipe: list[float] = []
    try:
        await full.command("b", "true")
        await plain.command("b", "true")
        for _ in range(REPEATS):
            seconds, size = await _terminal_s(full)
            ours.append(seconds)
            clean.append((await _terminal_s(plain))[0])
            bare.append((await _bare_pty("seq", "1", str(LINES)))[0])
            t = time.perf_counter()
            await _spawn("seq", "1", str(LINES))
            pipe.append(time.perf_counter() - t)
    finally:
        await full.close()
        await plain.close()
    ours_s, clean_s = statistics.median(ours), statistics.median(clean)
    bare_s, pipe_s = statistics.median(bare), statistics.median(pipe)
    vs_bare = statistics.median(o / b for o, b in zip(ours, bare, strict=True))
    vs_pipe = statistics.median(o / p for o, p in zip(ours, pipe, strict=True))
    report(
        f"pty output, cleaned + cut + 20 secrets {size / ours_s / 1e6:6.1f} MB/s "
        f"({size / 1e6:.1f} MB, median of {REPEATS}): {vs_bare:.2f}x a bare pty "
        f"({size / bare_s / 1e6:.0f} MB/s), {vs_pipe:.1f}x a raw pipe "
        f"({size / pipe_s / 1e6:.0f} MB/s); target <= 1.5x a bare pty"
    )
    report(
        f"pty output, cleaned + cut, no secrets  {size / clean_s / 1e6:6.1f} MB/s "
        f"({clean_s / bare_s:.2f}x a bare pty)"
    )


def redaction() -> None:
    rnd = random.Random(7)
    secrets = _secrets()
    words = ["build", "ok", "error:", "src/main.py", "12.5s", "warning", "\n"]
    text = " ".join(rnd.choices(words, k=1_400_000))
    text = text[: 8 * 1024 * 1024]
    redactor = Redactor(secrets)
    ours: list[float] = []
    base: list[float] = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        redactor.redact(text)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        plain = text
        for value in secrets.values():
            plain = plain.replace(value, "x")
        base.append(time.perf_counter() - t)
    mb = len(text) / 1e6
    ratio = statistics.median(o / b for o, b in zip(ours, base, strict=True))
    report(
        f"redaction, 20 secrets x all encodings  {mb / statistics.median(ours):8.1f} MB/s   "
        f"(str.replace of the raw values {mb / statistics.median(base):.0f} MB/s, "
        f"{ratio:.2f}x; target <= 2x)"
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
