"""The terminal, one-shot commands, output handling and redaction (issue [shell]).

Each figure is compared with a baseline measured in the same run:
- terminal round trip: a trivial command in the persistent pty vs starting a fresh
  `bash -c` per command (what a tool without a persistent shell pays);
- one-shot overhead: `ShellManager.oneshot` (new session, tag, output log, cleanup
  scan of /proc) vs a bare asyncio subprocess;
- the public path (issue [fast-paths]): `karyi exec` running one `<command>` that
  prints ~100 MB (`seq 1 13000000`), sandbox on, plain and with 20 secure variables
  to redact, vs a bare pty with output post-processing off (OPOST cleared) read by a
  fresh Python, and vs a raw pipe; wall and CPU time (the process and its children)
  and the peak RSS of `karyi exec`; checked: the output file holds every byte, the
  result keeps head and tail (target: within 1.5x of the bare pty, RSS < 300 MB);
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
import json
import os
import random
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from karyi.secrets.redact import Redactor
from karyi.secrets.store import SecretStore
from karyi.secrets.vault import Vault
from karyi.settings import DEFAULTS, Settings
from karyi.shell.manager import ShellManager
from karyi.shell.rules import CommandRules
from karyi.workspace.workspace import Workspace

ROUNDS = 200
LINES = 2_000_000
REPEATS = 5
EXEC_LINES = 13_000_000
EXEC_REPEATS = 3
SMOKE: dict[str, object] = {
    "ROUNDS": 8,
    "LINES": 2_000,
    "REPEATS": 1,
    "EXEC_LINES": 20_000,
    "EXEC_REPEATS": 1,
}
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


BARE_PTY = """
import os, subprocess, sys, termios
master, slave = os.openpty()
attrs = termios.tcgetattr(slave)
attrs[1] &= ~termios.OPOST
termios.tcsetattr(slave, termios.TCSANOW, attrs)
proc = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=slave, stderr=slave)
os.close(slave)
size = 0
while True:
    try:
        data = os.read(master, 65536)
    except OSError:
        break
    if not data:
        break
    size += len(data)
proc.wait()
print(size)
"""
RAW_PIPE = """
import subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
size = 0
while data := proc.stdout.read(65536):
    size += len(data)
proc.wait()
print(size)
"""


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """(wall s, CPU s of the process and its children, peak RSS MB, stdout) of `argv`."""
    with tempfile.TemporaryFile() as out:
        began = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - began
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode()
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{argv[:4]} exited {proc.returncode}: {text[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, text


def _exec_setup(root: Path) -> tuple[list[str], dict[str, str], dict[str, str], str]:
    """`karyi exec` argv, its env without and with 20 secure variables, sandbox state."""
    ws = root / "exec-ws"
    ws.mkdir()
    reply = root / "reply.xml"
    reply.write_text(f"<tools><command>seq 1 {EXEC_LINES}</command></tools>")
    confs = []
    for name in ("plain", "secrets"):
        conf = root / f"conf-{name}"
        conf.mkdir()
        (conf / "settings.json").write_text(json.dumps({"shell": {"sandbox": {"mode": "on"}}}))
        confs.append(conf)
    store = SecretStore(confs[1], find_keyring=lambda: None)
    for key, value in _secrets().items():
        store.set(key, value)
    argv = [sys.executable, "-m", "karyi", "exec", "--workspace", str(ws), "--yes", "--json"]
    base = {**os.environ, "KARYI_SECRETS_BACKEND": "file"}
    problem = _manager(root).sandbox_problem
    return (
        [*argv, str(reply)],
        {**base, "KARYI_CONFIG_DIR": str(confs[0])},
        {**base, "KARYI_CONFIG_DIR": str(confs[1])},
        f"sandbox not available ({problem}): run without it" if problem else "sandbox on",
    )


def _check_exec(text: str, ws: Path, size: int) -> int:
    """The result keeps head and tail; returns the bytes the output file holds."""
    [item] = json.loads(text)
    content = item["llm_content"]
    assert content.startswith("1\n2\n3\n"), content[:200]
    assert f"\n{EXEC_LINES}\n" in content, content[-300:]
    logs = list((ws / ".karyi" / "tmp").glob("*/cmd-*.log"))
    return sum(p.stat().st_size for p in logs) if logs else size


def public_path(root: Path) -> None:
    """`karyi exec` on ~100 MB vs a bare pty and a raw pipe, rounds alternating."""
    argv, plain_env, secret_env, sandbox = _exec_setup(root)
    command = ["seq", "1", str(EXEC_LINES)]
    rows: dict[str, list[tuple[float, float, float]]] = {}
    lost: dict[str, str] = {}
    size = 0
    for _ in range(EXEC_REPEATS):
        wall, cpu, rss, text = _timed([sys.executable, "-c", BARE_PTY, *command], os.environ.copy())
        size = int(text)
        rows.setdefault("bare pty, OPOST off", []).append((wall, cpu, rss))
        wall, cpu, rss, _ = _timed([sys.executable, "-c", RAW_PIPE, *command], os.environ.copy())
        rows.setdefault("raw pipe", []).append((wall, cpu, rss))
        for name, env in (("karyi exec", plain_env), ("karyi exec, 20 secrets", secret_env)):
            shutil.rmtree(root / "exec-ws" / ".karyi", ignore_errors=True)
            wall, cpu, rss, text = _timed(argv, env)
            kept = _check_exec(text, root / "exec-ws", size)
            if kept != size:
                lost[name] = f"{size - kept:,} bytes"
            rows.setdefault(name, []).append((wall, cpu, rss))
    bare = rows["bare pty, OPOST off"]
    report(
        f"public path: `karyi exec` of `seq 1 {EXEC_LINES}` ({size / 1e6:.0f} MB), {sandbox}, "
        f"median of {EXEC_REPEATS}; ratios to the bare pty (target <= 1.5x, RSS < 300 MB)"
    )
    for name, runs in rows.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        rss = max(r[2] for r in runs)
        w_ratio = statistics.median(r[0] / b[0] for r, b in zip(runs, bare, strict=True))
        c_ratio = statistics.median(r[1] / b[1] for r, b in zip(runs, bare, strict=True))
        report(
            f"  {name:<24} wall {wall:7.2f} s ({w_ratio:5.2f}x)   CPU {cpu:6.2f} s "
            f"({c_ratio:5.2f}x)   peak RSS {rss:6.1f} MB"
            + (f"   LOST to the output file: {lost[name]}" if name in lost else "")
        )


def main() -> None:
    """Print every figure."""
    with tempfile.TemporaryDirectory() as tmp:
        public_path(Path(tmp))
        asyncio.run(terminal_vs_fresh(Path(tmp)))
        asyncio.run(throughput(Path(tmp)))
        asyncio.run(sandbox_vs_plain(Path(tmp)))
    redaction()
    rules()


if __name__ == "__main__":
    main()
