"""The language server's costs, each against a baseline measured in the same run.

- Start-up: spawn `karyi lsp --stdio` and wait for the `initialize` result; baseline: an
  empty pygls server doing the same (the floor any pygls server pays). Target < 400 ms.
- Memory: resident set size once the agent host is built (after a first request);
  baseline: the empty pygls server. Target < 80 MB.
- A tool round trip through LSP: a replayed model answers instantly with one `<read>`
  per step; the time between `step` notifications, against the same turn run in-process
  without LSP. Target: < 5 ms median overhead.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import BaseLanguageClient

RUNS = 5
STEPS = 100
SMOKE: dict[str, object] = {"RUNS": 1, "STEPS": 5}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""
EMPTY_SERVER = """
from pygls.lsp.server import LanguageServer
LanguageServer("empty", "0").start_io()
"""


def rss_mb(pid: int) -> float:
    """Resident memory of a process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def start(
    cmd: list[str], root: Path, options: dict[str, Any]
) -> tuple[BaseLanguageClient, float]:
    client = BaseLanguageClient("bench", "0")

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def log_message(params: Any) -> None:
        """The server's log lines are not part of what is measured."""

    began = time.perf_counter()
    await client.start_io(*cmd)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.as_uri(),
            initialization_options=options,
        )
    )
    return client, time.perf_counter() - began


async def stop(client: BaseLanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def script(root: Path, steps: int) -> Path:
    path = root / "bench-script.json"
    read = '<tools><read><file src="README.md"/></read></tools>'
    path.write_text(json.dumps({"chunk": 1_000_000, "replies": [read] * steps + ["Done."]}))
    return path


async def startup(root: Path) -> tuple[list[float], list[float], float, float]:
    karyi = [sys.executable, "-m", "karyi", "lsp", "--stdio"]
    empty = [sys.executable, "-c", EMPTY_SERVER]
    ours, floor = [], []
    mem_ours = mem_floor = 0.0
    for _ in range(RUNS):
        client, took = await start(empty, root, {})
        floor.append(took)
        mem_floor = rss_mb(client._server.pid)  # type: ignore[union-attr]
        await stop(client)
        client, took = await start(karyi, root, {"karyi": {"ui": True}})
        ours.append(took)
        await client.protocol.send_request_async("karyi/sessions", {})  # host built
        mem_ours = rss_mb(client._server.pid)  # type: ignore[union-attr]
        await stop(client)
    return ours, floor, mem_ours, mem_floor


async def through_lsp(root: Path) -> list[float]:
    options = {
        "karyi": {"ui": True},
        "settings": {"model": f"script:{script(root, STEPS)}", "maxSteps": STEPS + 5},
    }
    client, _ = await start([sys.executable, "-m", "karyi", "lsp", "--stdio"], root, options)
    marks: list[float] = []

    @client.feature("karyi/turnUpdate")
    def update(params: Any) -> None:
        if params.event.type == "step":
            marks.append(time.perf_counter())

    await client.protocol.send_request_async("karyi/chat", {"message": "read it"})
    await stop(client)
    return [b - a for a, b in itertools.pairwise(marks)]


async def in_process(root: Path) -> list[float]:
    from karyi.agent.events import Step
    from karyi.agent.review.approval import approve_all
    from karyi.agent.runtime import Runtime
    from karyi.settings import Settings

    settings = Settings().with_values(model=f"script:{script(root, STEPS)}", maxSteps=STEPS + 5)
    runtime = Runtime.open(root, settings)
    agent = runtime.agent(runtime.conversation(), approver=approve_all)
    marks: list[float] = []
    agent.events.subscribe(
        lambda e: marks.append(time.perf_counter()) if isinstance(e, Step) else None
    )
    await agent.run("read it")
    await runtime.aclose()
    return [b - a for a, b in itertools.pairwise(marks)]


def main(report: Callable[[str], None] = print) -> dict[str, float]:
    """Run the benchmark; returns the medians."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "README.md").write_text("# Bench\n" * 20)
        ours, floor, mem_ours, mem_floor = asyncio.run(startup(root))
        lsp_steps = asyncio.run(through_lsp(root))
        local_steps = asyncio.run(in_process(root))
    start_ms, floor_ms = statistics.median(ours) * 1000, statistics.median(floor) * 1000
    lsp_ms, local_ms = statistics.median(lsp_steps) * 1000, statistics.median(local_steps) * 1000
    report(
        f"spawn -> initialize result: {start_ms:6.0f} ms (empty pygls server {floor_ms:.0f} ms,"
        f" x{start_ms / floor_ms:.2f}; target < 400 ms)"
    )
    report(
        f"resident memory, host built: {mem_ours:6.1f} MB (empty pygls server {mem_floor:.1f} MB;"
        " target < 80 MB)"
    )
    report(
        f"tool round trip via LSP:    {lsp_ms:6.2f} ms median of {len(lsp_steps)} "
        f"(in-process {local_ms:.2f} ms; overhead {lsp_ms - local_ms:.2f} ms; target < 5 ms)"
    )
    return {"startup_ms": start_ms, "rss_mb": mem_ours, "overhead_ms": lsp_ms - local_ms}


if __name__ == "__main__":
    main()
