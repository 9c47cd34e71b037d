"""The gateway's `read_file` over loopback (issue [gateway]): requests per second and
latency p50/p99 against `karyi gateway` running as its own process (uvicorn, one
worker), with a bounded load generator: C keep-alive connections sending N requests in
all, then stopping.

Baselines measured in the same run:
- the same call in-process, without HTTP (`ToolRunner.run`: executor, path policy,
  document store): what the HTTP layer costs on top;
- `GET /health` on the same server: HTTP, routing and JSON with no body to parse and no
  tool to run: what parsing the request and running the tool cost on top.

The load generator speaks HTTP/1.1 itself over asyncio streams (a few lines, below),
because a full client library spends more time per request than the server does and
would measure itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from karyi.agent.runtime import Runtime
from karyi.gateway.tools import ToolRunner
from karyi.settings import Settings

CONNECTIONS = 16
REQUESTS = 4000
WARMUP = 300
SMOKE: dict[str, object] = {"CONNECTIONS": 2, "REQUESTS": 40, "WARMUP": 4}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""
FILE_BYTES = 4096
BODY = json.dumps(
    {"biz_params": {"tool": {"name": "read_file", "input": {"path": "docs/contracts.md"}}}}
).encode()


@dataclass(frozen=True)
class Figures:
    """Throughput and latency of one phase."""

    per_second: float
    p50_ms: float
    p99_ms: float

    def line(self, what: str, unit: str) -> str:
        return (
            f"  {what:<34}{self.per_second:>10,.0f} {unit:<8}"
            f"p50 {self.p50_ms:>6.2f} ms   p99 {self.p99_ms:>6.2f} ms"
        )


def figures(latencies: list[float], seconds: float) -> Figures:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return Figures(len(ordered) / seconds, statistics.median(ordered) * 1000, p99 * 1000)


class Connection:
    """One keep-alive HTTP/1.1 connection: send a request, read the whole response."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, authority: str
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.authority = authority

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        return cls(*await asyncio.open_connection(host, port), f"{host}:{port}")

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        head = (
            f"{method} {path} HTTP/1.1\r\nhost: {self.authority}\r\n"
            "content-type: application/json\r\n"
            f"content-length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        status_line = await self.reader.readline()
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return int(status_line.split()[1]), await self.reader.readexactly(length)

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


async def load(host: str, port: int, method: str, path: str, body: bytes) -> Figures:
    """REQUESTS requests over CONNECTIONS connections (after a warm-up); every answer
    must be 200."""
    conns = [await Connection.open(host, port) for _ in range(CONNECTIONS)]
    latencies: list[float] = []
    remaining = WARMUP

    async def worker(conn: Connection, record: bool) -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            start = time.perf_counter()
            status, _ = await conn.request(method, path, body)
            if status != 200:
                raise RuntimeError(f"{method} {path}: HTTP {status}")
            if record:
                latencies.append(time.perf_counter() - start)

    await asyncio.gather(*(worker(c, False) for c in conns))
    remaining = REQUESTS
    start = time.perf_counter()
    await asyncio.gather(*(worker(c, True) for c in conns))
    seconds = time.perf_counter() - start
    for conn in conns:
        await conn.close()
    return figures(latencies, seconds)


async def in_process(root: Path) -> Figures:
    """The same call without HTTP, one at a time (what each request does in the server)."""
    runtime = Runtime.open(root, Settings())
    runner = ToolRunner(runtime)
    params = {"path": "docs/contracts.md"}
    for _ in range(WARMUP):
        await runner.run("read_file", params, "bench")
    latencies = []
    start = time.perf_counter()
    for _ in range(REQUESTS):
        t = time.perf_counter()
        reply = await runner.run("read_file", params, "bench")
        latencies.append(time.perf_counter() - t)
        assert reply.status == 200
    seconds = time.perf_counter() - start
    await runtime.aclose()
    return figures(latencies, seconds)


def start_gateway(root: Path) -> tuple[subprocess.Popen[str], str, int]:
    """`karyi gateway --port 0` as its own process; (process, host, port)."""
    env = {k: v for k, v in os.environ.items() if k != "KARYI_GATEWAY_TOKEN"}
    env["KARYI_CONFIG_DIR"] = str(root.parent / "config")
    proc = subprocess.Popen(
        [sys.executable, "-m", "karyi", "gateway", "--workspace", str(root), "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    banner = proc.stderr.readline()
    match = re.match(r"karyi gateway: http://([\d.]+):(\d+) ", banner)
    if not match:
        proc.kill()
        raise RuntimeError(f"karyi gateway did not start: {banner}{proc.stderr.read()}")
    return proc, match.group(1), int(match.group(2))


def main(say: Callable[[str], None] = print) -> dict[str, float]:
    """Run the benchmark; returns the figures and ratios."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        (root / "docs").mkdir(parents=True)
        (root / "docs" / "contracts.md").write_text(("contract line\n" * 400)[:FILE_BYTES])
        local = asyncio.run(in_process(root))
        proc, host, port = start_gateway(root)
        try:
            health = asyncio.run(load(host, port, "GET", "/health", b""))
            read = asyncio.run(load(host, port, "POST", "/agent/process", BODY))
        finally:
            proc.terminate()
            proc.wait(30)
    say(
        f"gateway read_file of a {FILE_BYTES} B file on loopback: karyi gateway (uvicorn, one "
        f"process), {CONNECTIONS} keep-alive connections, {REQUESTS} requests per phase"
    )
    say(local.line("in-process call (no HTTP)", "calls/s"))
    say(health.line("GET /health (HTTP only)", "req/s"))
    say(read.line("POST /agent/process read_file", "req/s"))
    ratios = {
        "read_rps": read.per_second,
        "read_p50_ms": read.p50_ms,
        "read_p99_ms": read.p99_ms,
        "read_vs_health": read.per_second / health.per_second,
        "read_vs_in_process": read.per_second / local.per_second,
    }
    say(
        f"  read_file / health: {ratios['read_vs_health']:.2f}x throughput; "
        f"HTTP / in-process: {ratios['read_vs_in_process']:.2f}x"
    )
    return ratios


if __name__ == "__main__":
    main()
