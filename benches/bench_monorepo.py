"""A large repository (issue [scale]): 200,000 files in 20,000 directories.

The tree (`monorepo_tree.py`: sources, `node_modules/`, build output, the sources
committed) is generated once into the temp directory and reused; `--files N` scales it
down. Each figure has a baseline measured in the same run:

- first tool call: from sending LSP `initialize` to the first `toolDone` of a chat whose
  (replayed) model reads one file, on the large tree vs on a 1,000-file tree of the same
  shape; runs alternate, medians (target: within 2x);
- memory: the server's resident set after that first call and after 1,000 reads of
  distinct files (target: < 150 MB);
- grep and glob: the tools (`vecli.grep`, `vecli.glob`) vs `rg` with its defaults
  (parallel, unsorted; `--hidden` with `.git/` left out, as the tools do) and
  `rg --files --glob` (given the package's directory when the pattern names one), an
  fd-style parallel walk; best of 3;
- freshness: 1,000 same-size external changes to a file deep in the tree, each read
  through the document store with the watcher running on the whole tree, then again
  with the watch limit simulated (the watcher's on-demand mode): the delay from the end
  of the write to a fresh read (target: p99 < 250 ms, 0 stale).

Run: `python benches/bench_monorepo.py [--files N]` (the first run generates the tree).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import BaseLanguageClient

from bench_freshness import _change, _writer, pct
from bench_grep import best
from bench_lsp import rss_mb, stop
from karyi.settings import Settings
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry
from karyi.workspace.ripgrep import rg_binary
from karyi.workspace.watcher import Backend
from karyi.workspace.workspace import Workspace
from monorepo_tree import directories, tree

FILES = 200_000
"""Files in the large tree (`--files N`)."""
SMALL = 1_000
RUNS = 3
READS = 1_000
PER_REPLY = 100
CHANGES = 1_000
SMOKE: dict[str, object] = {
    "FILES": 1_500,
    "SMALL": 300,
    "RUNS": 1,
    "READS": 20,
    "PER_REPLY": 10,
    "CHANGES": 20,
}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""


def _sources(root: Path, count: int) -> list[str]:
    """`count` committed files spread evenly over the tree."""
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=True
    ).stdout.split()
    step = max(1, len(listed) // count)
    return listed[::step][:count]


def _script(folder: Path, root: Path, reads: bool) -> Path:
    """One read; with `reads`, then `READS` distinct files, `PER_REPLY` per reply."""
    first = '<tools><read><file src="README.md"/></read></tools>'
    files = _sources(root, READS) if reads else []
    many = [
        "<tools><read>"
        + "".join(f'<file src="{f}" limit="20"/>' for f in files[i : i + PER_REPLY])
        + "</read></tools>"
        for i in range(0, len(files), PER_REPLY)
    ]
    path = folder / f"script-{root.name}-{reads}.json"
    path.write_text(json.dumps({"chunk": 1_000_000, "replies": [first, *many, "Done."]}))
    return path


class _Session:
    """A `karyi lsp` process on one tree, with the turn events it sent."""

    def __init__(self) -> None:
        self.client = BaseLanguageClient("bench", "0")
        self.first_done = asyncio.Event()
        self.turn_over = asyncio.Event()
        self.failed = 0
        self.files_read = 0

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def log_message(params: Any) -> None:
            """Not measured."""

        @self.client.feature("karyi/turnUpdate")
        def update(params: Any) -> None:
            kind = params.event.type
            if kind == "toolDone":
                self.first_done.set()
                result = getattr(params.event, "result", None)
                if result is not None and not getattr(result, "success", True):
                    self.failed += 1
                elif result is not None:
                    self.files_read += len(getattr(params.event.call.params, "files", []))
            elif kind == "turnFinished":
                self.turn_over.set()

    async def chat(self, message: str) -> None:
        self.turn_over.clear()
        await self.client.protocol.send_request_async("karyi/chat", {"message": message})
        await asyncio.wait_for(self.turn_over.wait(), 600)

    @property
    def pid(self) -> int:
        return self.client._server.pid  # type: ignore[union-attr]


async def first_call(root: Path, script: Path, reads: bool) -> tuple[float, float]:
    """Seconds to the first tool call, and the RSS (MB) once the turn is over: after
    that one call, or with `reads` after `READS` more reads."""
    s = _Session()
    await s.client.start_io(sys.executable, "-m", "karyi", "lsp", "--stdio")
    settings = {"model": f"script:{script}", "maxSteps": READS // PER_REPLY + 5}
    began = time.perf_counter()
    await s.client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.as_uri(),
            initialization_options={"karyi": {"ui": True}, "settings": settings},
        )
    )
    s.client.initialized(types.InitializedParams())
    chat = asyncio.ensure_future(s.chat("read the README"))
    await asyncio.wait_for(s.first_done.wait(), 600)
    took = time.perf_counter() - began
    await chat
    rss = rss_mb(s.pid)
    assert s.failed == 0, f"{s.failed} read calls failed"
    assert s.files_read == 1 + (READS if reads else 0), f"{s.files_read} files were read"
    await stop(s.client)
    return took, rss


def search(root: Path, report: Callable[[str], None]) -> dict[str, float]:
    """grep and glob against rg and an fd-style walk, as ratios."""
    ctx = ToolContext(Workspace.open(root), Settings())
    registry = builtin_registry()
    rg = rg_binary()

    def tool(name: str, params: dict[str, Any]) -> Callable[[], Any]:
        t = registry.find(name)

        def run() -> Any:
            result = asyncio.run(t.run(params, ctx))
            assert result.success, result.llm_content
            return result

        return run

    def cmd(*argv: str) -> Callable[[], int]:
        def run() -> int:
            out = subprocess.run(argv, cwd=root, capture_output=True, check=False)
            return out.stdout.count(b"\n")

        return run

    cases = [
        (
            "grep, a rare line",
            tool("vecli.grep", {"pattern": "NEEDLE 4200:"}),
            cmd(rg, "-n", "--no-config", "--hidden", "-g", "!.git", "-i", "-e", "NEEDLE 4200:"),
        ),
        (
            "grep, capped at 200",
            tool("vecli.grep", {"pattern": "NEEDLE"}),
            cmd(rg, "-n", "--no-config", "--hidden", "-g", "!.git", "-i", "-e", "NEEDLE"),
        ),
        (
            "glob **/*.tsx",
            tool("vecli.glob", {"pattern": "**/*.tsx"}),
            cmd(rg, "--files", "--no-config", "--hidden", "-g", "!.git", "--glob", "**/*.tsx"),
        ),
        (
            "glob one package",
            tool("vecli.glob", {"pattern": "packages/pkg0007/**/*.ts"}),
            cmd(
                rg,
                "--files",
                "--no-config",
                "--hidden",
                "-g",
                "!.git",
                "--glob",
                "*.ts",
                "packages/pkg0007",
            ),
        ),
    ]
    ratios: dict[str, float] = {}
    for name, ours, base in cases:
        base()  # warm the page cache
        ours_s, base_s = best(ours), best(base)
        ratios[name] = ours_s / base_s
        report(
            f"{name:<24}{ours_s * 1000:9.0f} ms   rg {base_s * 1000:7.0f} ms   "
            f"{ours_s / base_s:5.2f}x"
        )
    return ratios


def _limit_reached(root: Path, directories: list[Path], stop: threading.Event) -> Backend:
    raise OSError("OS file watch limit reached")


async def freshness(root: Path, degraded: bool) -> tuple[list[float], int, str, float, str | None]:
    """Delays (ms), stale reads, watcher mode, seconds to set it up, its notice; with
    `degraded`, the watch limit is simulated (the watcher falls back to on-demand)."""
    ws = Workspace.open(root)
    store = ws.documents
    if degraded:
        store.watcher.backend = _limit_reached
        logging.getLogger("karyi.workspace.watcher").setLevel(logging.ERROR)  # shown below
    path = root / _sources(root, 2)[1]
    original = path.read_bytes()
    path.write_text(f"version {0:08d}\n")
    store.watcher.setup_delay = 0  # measured here: how long the set-up itself takes
    started = time.perf_counter()
    await store.start_watching()
    mode = await store.watcher.wait_ready()
    ready_s = time.perf_counter() - started
    proc = await _writer(path)
    delays: list[float] = []
    stale = 0
    shown = str(path.relative_to(root))
    try:
        for i in range(1, CHANGES + 1):
            done = await _change(proc, i)
            if store.read(path, shown).text != f"version {i:08d}\n":
                stale += 1
            delays.append((time.monotonic_ns() - done) / 1e6)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        await proc.wait()
        await store.stop_watching()
        path.write_bytes(original)
    mode += f", {store.watcher.watched:,} directories watched" if mode == "native" else ""
    return delays, stale, mode, ready_s, store.watch_notice


def main(report: Callable[[str], None] = print, files: int | None = None) -> dict[str, float]:
    """Run the benchmark on a tree of `files` files (default FILES); returns the headline
    figures."""
    files = FILES if files is None else files
    started = time.perf_counter()
    big, small = tree(files), tree(SMALL)
    report(
        f"tree: {files:,} files in {directories(files):,} directories at {big} "
        f"(ready in {time.perf_counter() - started:.1f} s; baseline tree {SMALL:,} files)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        one = {root: _script(Path(tmp), root, False) for root in (big, small)}
        big_s, small_s, ratio, rss = [], [], [], []
        for _ in range(RUNS):
            s_took, _ = asyncio.run(first_call(small, one[small], False))
            b_took, b_rss = asyncio.run(first_call(big, one[big], False))
            big_s.append(b_took)
            small_s.append(s_took)
            ratio.append(b_took / s_took)
            rss.append(b_rss)
        _, rss_reads = asyncio.run(first_call(big, _script(Path(tmp), big, True), True))
        rss_start = statistics.median(rss)
    first = statistics.median(ratio)
    report(
        f"initialize -> first tool call: {statistics.median(big_s) * 1000:6.0f} ms vs "
        f"{statistics.median(small_s) * 1000:.0f} ms on {SMALL:,} files: {first:.2f}x "
        f"(median of {RUNS}; target <= 2x)"
    )
    report(
        f"server RSS: {rss_start:.0f} MB after the first call, {rss_reads:.0f} MB after "
        f"{READS:,} reads (target < 150 MB)"
    )
    ratios = search(big, report)
    worst = 0.0
    for degraded in (False, True):
        delays, stale, mode, ready_s, notice = asyncio.run(freshness(big, degraded))
        p50, p99 = statistics.median(delays), pct(delays, 0.99)
        worst = max(worst, p99)
        report(
            f"freshness, watcher {mode} (ready in {ready_s:.2f} s, off the event loop): "
            f"{CHANGES:,} changes, p50 {p50:.2f} ms, p99 {p99:.2f} ms, {stale} stale reads "
            "(target: p99 < 250 ms, 0 stale)"
        )
        if notice:
            report(f"  notice (simulated watch limit): {notice}")
    return {"first_call_ratio": first, "rss_reads_mb": rss_reads, "p99_ms": worst, **ratios}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=FILES, help="files in the large tree")
    main(files=parser.parse_args().files)
