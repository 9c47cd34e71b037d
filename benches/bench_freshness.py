"""Reads are never stale: 10k external changes with reads in between (issue [workspace]).

Another process rewrites a file 10,000 times, always with the same size (the case a
size+mtime check alone misses when two writes share a timestamp tick), alternating
in-place writes and write-then-rename; after each write it reports the time. The
reader, with the watcher running, reads through the document store at once: a read
that starts after the write finished and returns older content is a stale read. The
delay is from the end of the write to the end of the first read that sees it.

Baseline in the same run: a cache that trusts its entries until the watcher reports a
change (what a watcher-only design does), over 300 changes (each can take a debounce
period to become visible, so fewer are run).

Targets: p99 < 250 ms, 0 stale reads.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from karyi.workspace.documents import DocumentStore
from karyi.workspace.workspace import Workspace

CHANGES = 10_000
BASELINE_CHANGES = 300
SMOKE: dict[str, object] = {"CHANGES": 40, "BASELINE_CHANGES": 5}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""
WRITER = r"""
import os, sys, time
path = sys.argv[1]
for line in sys.stdin:
    i = int(line)
    data = f"version {i:08d}\n".encode()
    if i % 2:
        with open(path, "r+b") as fh:
            fh.write(data)
    else:
        tmp = path + ".tmp"
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    sys.stdout.write(f"{time.monotonic_ns()}\n")
    sys.stdout.flush()
"""


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _writer(path: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        WRITER,
        str(path),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )


async def _change(proc: asyncio.subprocess.Process, i: int) -> int:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{i}\n".encode())
    await proc.stdin.drain()
    return int(await proc.stdout.readline())


async def _until(fresh: Callable[[], bool], changed: asyncio.Event) -> None:
    """Wait for the watcher's events until a read is fresh."""
    while True:
        changed.clear()
        if fresh():
            return
        await asyncio.wait_for(changed.wait(), 5)


async def _ready(store: DocumentStore) -> None:
    """Wait until every watcher watches: events before that (its setup delay) are lost."""
    for watcher in store.watchers:
        await watcher.wait_ready()


async def store_run(root: Path) -> tuple[list[float], int, int]:
    ws = Workspace.open(root)
    store: DocumentStore = ws.documents
    path = root / "watched.txt"
    path.write_text(f"version {0:08d}\n")
    changed = asyncio.Event()
    store.add_listener(lambda paths: changed.set())
    await store.start_watching()
    await _ready(store)
    proc = await _writer(path)
    delays: list[float] = []
    stale = 0
    try:
        for i in range(1, CHANGES + 1):
            done = await _change(proc, i)
            want = f"version {i:08d}\n"
            if store.read(path, "watched.txt").text != want:
                stale += 1
                await _until(lambda w=want: store.read(path, "watched.txt").text == w, changed)
            delays.append((time.monotonic_ns() - done) / 1e6)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        await proc.wait()
        await store.stop_watching()
    return delays, stale, store.stats.invalidations


async def baseline_run(root: Path) -> tuple[list[float], int]:
    """A cache trusted until the watcher says the file changed."""
    ws = Workspace.open(root)
    store = ws.documents
    path = root / "watched.txt"
    path.write_text(f"version {0:08d}\n")
    cache: dict[Path, str] = {}
    changed = asyncio.Event()

    def invalidate(paths: set[Path]) -> None:
        for p in paths:
            cache.pop(p, None)
        changed.set()

    store.add_listener(invalidate)

    def read() -> str:
        if path not in cache:
            cache[path] = path.read_text()
        return cache[path]

    await store.start_watching()
    await _ready(store)
    proc = await _writer(path)
    delays: list[float] = []
    stale = 0
    try:
        read()
        for i in range(1, BASELINE_CHANGES + 1):
            done = await _change(proc, i)
            want = f"version {i:08d}\n"
            if read() != want:
                stale += 1
                await _until(lambda w=want: read() == w, changed)
            delays.append((time.monotonic_ns() - done) / 1e6)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        await proc.wait()
        await store.stop_watching()
    return delays, stale


def main(report: Callable[[str], None] = print) -> dict[str, float]:
    """Run the benchmark; returns p50/p99 delays (ms) and the stale-read count."""
    tmp = Path(tempfile.mkdtemp(prefix="karyi-bench-fresh-"))
    try:
        start = time.perf_counter()
        delays, stale, invalidations = asyncio.run(store_run(tmp))
        took = time.perf_counter() - start
        base_delays, base_stale = asyncio.run(baseline_run(tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    p50, p99 = statistics.median(delays), pct(delays, 0.99)
    b50, b99 = statistics.median(base_delays), pct(base_delays, 0.99)
    report(
        f"{CHANGES} same-size external changes in {took:.1f}s; "
        f"watcher invalidations: {invalidations}"
    )
    report(f"{'':<28}{'changes':>8}{'p50':>10}{'p99':>10}{'stale reads':>13}")
    report(f"{'document store':<28}{CHANGES:>8}{p50:>8.2f}ms{p99:>8.2f}ms{stale:>13}")
    report(
        f"{'watcher-only cache':<28}{BASELINE_CHANGES:>8}{b50:>8.2f}ms{b99:>8.2f}ms{base_stale:>13}"
    )
    report("target: p99 < 250 ms and 0 stale reads")
    return {"p50_ms": p50, "p99_ms": p99, "stale": float(stale)}


if __name__ == "__main__":
    main()
