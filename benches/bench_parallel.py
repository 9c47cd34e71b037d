"""Background tasks in parallel: the local pool's throughput, and Ray's overhead.

1. Throughput: 12 batch tasks (each two model replies of a fake model that takes
   LATENCY seconds per reply, an edit, a commit, a diff) on the local pool with 1 slot
   and with 4. Baseline: the pool of 1. Figure: the throughput ratio (pool 4 / pool 1).
   On a 2-core machine the agents mostly wait for the model, so the ratio approaches 4
   as long as the CPU work per task (git, SQLite, parsing) stays small.
2. Ray overhead: the same 12 tasks (instant model) on a two-node local Ray cluster (a
   head and a second node, one CPU each, started here, not counted) against the local
   pool with 2 slots (the same parallelism). Figure: the extra wall time per task that
   Ray adds (bundle, scheduling, a clone per task, landing the patch).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The repository root, for tests.support: tests/ itself on the path would stand in
# for packages named like its folders (tests/acp for the ACP SDK, tests/secrets for
# the standard library's secrets).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from karyi.agent.background.batch import BatchTask, run_pool
from karyi.agent.background.worktrees import git
from karyi.settings import Settings, load_settings
from tests.support.fake_model_server import FakeModelServer, Received
from tests.support.replies import Reply

TASKS = 12
LATENCY = 0.5
KEY = "bench-key"
WITH_RAY = True
SMOKE: dict[str, object] = {"TASKS": 2, "LATENCY": 0.05, "WITH_RAY": False}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`); the Ray cluster is left
out there, tests/cli starts one already."""


def report(line: str) -> None:
    print(line, flush=True)


def responder(latency: float) -> object:
    def reply(received: Received) -> Reply:
        time.sleep(latency)  # the model's latency, which the pool overlaps
        first = next(m for m in received.body["messages"] if m["role"] == "user")
        n = int(str(first["content"]).split("edit line ", 1)[1].split()[0])
        if len(received.body["messages"]) > 2:
            return Reply(text=f"Task {n} is done.")
        edit = f"<find>line {n}\n</find><replace>LINE {n}\n</replace>"
        return Reply(text=f'<tools><edit><file src="notes.txt">{edit}</file></edit></tools>')

    return reply


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "notes.txt").write_text("".join(f"line {n}\n" for n in range(1, TASKS + 1)))
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "start"]):
        git(root, *args)
    return root


def tasks_for(repo: Path) -> list[BatchTask]:
    return [BatchTask(n, str(repo), f"edit line {n} please") for n in range(1, TASKS + 1)]


def settings(server: FakeModelServer) -> Settings:
    flags = {"model": "openai:fake-model", "baseUrl": server.openai_url}
    return load_settings(None, flags=flags)


def pool_seconds(server: FakeModelServer, root: Path, jobs: int) -> float:
    repo = make_repo(root / f"repo-{jobs}")
    values = settings(server)
    start = time.perf_counter()
    results = asyncio.run(
        run_pool(
            tasks_for(repo), root / f"batch-{jobs}", lambda _w, _m: values, jobs, print_nothing
        )
    )
    took = time.perf_counter() - start
    assert all(r.status == "done" for r in results), [r.error for r in results]
    return took


def print_nothing(_result: object) -> None:
    return None


def throughput(server: FakeModelServer, root: Path) -> None:
    server.responder = responder(LATENCY)  # type: ignore[assignment]
    one = pool_seconds(server, root / "t1", 1)
    four = pool_seconds(server, root / "t4", 4)
    report(f"pool of 1: {TASKS} tasks in {one:.2f}s ({TASKS / one:.2f} tasks/s)  [baseline]")
    report(f"pool of 4: {TASKS} tasks in {four:.2f}s ({TASKS / four:.2f} tasks/s)")
    report(f"throughput ratio pool 4 / pool 1: {one / four:.2f}x (model latency {LATENCY}s)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_cluster(root: Path) -> tuple[str, list[subprocess.Popen[bytes]]]:
    ray = str(Path(sys.executable).parent / "ray")
    port = free_port()
    node = ["--num-cpus=1", "--object-store-memory=80000000", "--disable-usage-stats", "--block"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    head = subprocess.Popen(
        [
            ray,
            "start",
            "--head",
            f"--port={port}",
            "--include-dashboard=false",
            f"--temp-dir={root / 'ray'}",
            *node,
        ],
        start_new_session=True,
        **quiet,
    )
    second = subprocess.Popen(
        [ray, "start", f"--address=127.0.0.1:{port}", *node], start_new_session=True, **quiet
    )
    return f"127.0.0.1:{port}", [head, second]


def ray_overhead(server: FakeModelServer, root: Path) -> None:
    from karyi.agent.background.on_ray import run_on_ray

    server.responder = responder(0.0)  # type: ignore[assignment]
    local = pool_seconds(server, root / "l2", 2)
    address, nodes = start_cluster(root)
    try:
        values = settings(server).values
        run_on_ray(
            tasks_for(make_repo(root / "warm")),
            root / "warm-batch",
            address,
            lambda _t: values,
            print_nothing,
        )  # workers started, imports warm
        repo = make_repo(root / "repo-ray")
        start = time.perf_counter()
        results = run_on_ray(
            tasks_for(repo), root / "ray-batch", address, lambda _t: values, print_nothing
        )
        on_ray = time.perf_counter() - start
    finally:
        for proc in nodes:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert all(r.status == "done" for r in results), [r.error for r in results]
    report(
        f"local pool of 2: {TASKS} tasks in {local:.2f}s ({local / TASKS * 2:.2f}s a task)"
        "  [baseline]"
    )
    report(
        f"Ray, 2 nodes x 1 CPU: {TASKS} tasks in {on_ray:.2f}s ({on_ray / TASKS * 2:.2f}s a task)"
    )
    report(f"Ray overhead per task: {(on_ray - local) / TASKS * 2:+.2f}s")


def main() -> None:
    """Both measurements in one run."""
    os.environ["KARYI_API_KEY"] = KEY
    server = FakeModelServer().start()
    try:
        with tempfile.TemporaryDirectory(prefix="karyi-bench-parallel-") as tmp:
            throughput(server, Path(tmp))
            if WITH_RAY:
                ray_overhead(server, Path(tmp))
    finally:
        server.stop()
    json.dumps({})


if __name__ == "__main__":
    main()
