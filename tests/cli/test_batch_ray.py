"""`karyi batch --ray` on a real two-node local Ray cluster (a head and a second node as
separate processes, one CPU each) against the fake model server: a node is killed while
a task runs on it, Ray retries it, every task completes with the patches the local pool
makes, and the API key reaches the workers without showing in Ray's logs."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from karyi.agent.background.worktrees import git
from tests.agent.test_background import make_repo
from tests.support.fake_model_server import FakeModelServer, Received
from tests.support.procs import marked
from tests.support.replies import Reply

RAY = str(Path(sys.executable).parent / "ray")
KEY = "sk-ray-test-0f1e2d3c4b5a"
TASKS = 6
NODE = ["--num-cpus=1", "--object-store-memory=80000000", "--disable-usage-stats", "--block"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _task_number(received: Received) -> int:
    first_user = next(m for m in received.body["messages"] if m["role"] == "user")
    content = first_user["content"]
    text = content if isinstance(content, str) else json.dumps(content)
    return int(text.split("edit line ", 1)[1].split()[0])


class Model:
    """Answers each task by its number: first an edit of its own line, then done. The
    first replies wait at `gate` until the test opens it."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.asking: set[int] = set()
        self.first_asks: dict[int, int] = {}
        """Per task, how many times it started (its first model request)."""
        self.changed = threading.Condition()
        self.server = FakeModelServer().start()
        self.server.responder = self.reply

    def wait_for_tasks(self, count: int) -> None:
        """Block until `count` different tasks have asked the model (a retried request
        of one task counts once)."""
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.asking) >= count, timeout=600)

    def reply(self, received: Received) -> Reply:
        n = _task_number(received)
        with self.changed:
            self.asking.add(n)
            if len(received.body["messages"]) <= 2:
                self.first_asks[n] = self.first_asks.get(n, 0) + 1
            self.changed.notify_all()
        self.gate.wait(timeout=600)
        if len(received.body["messages"]) > 2:
            return Reply(text=f"Task {n} is done.")
        pair = f"<find>line {n}</find><replace>LINE {n} edited</replace>"
        edit = f'<edit><file src="notes.txt">{pair}</file></edit>'
        return Reply(text=f"Editing line {n}.\n<tools>{edit}</tools>")


@pytest.fixture
def model() -> Iterator[Model]:
    m = Model()
    yield m
    m.gate.set()
    m.server.stop()


def _write_tasks(folder: Path, repo: Path) -> Path:
    folder.mkdir()
    lines = [
        json.dumps(
            {"repo": str(repo), "task": f"edit line {n} please", "check": "test -s notes.txt"}
        )
        for n in range(1, TASKS + 1)
    ]
    path = folder / "tasks.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _env(model: Model, **more: str) -> dict[str, str]:
    env = {**os.environ, "COLUMNS": "250", "KARYI_MODEL": "openai:fake-model"}
    env["KARYI_BASE_URL"] = model.server.openai_url
    env.pop("KARYI_API_KEY", None)
    env.pop("RAY_ADDRESS", None)
    return {**env, **more}


def _patches(repo: Path, report: Path) -> dict[str, str]:
    rows = json.loads(report.read_text())["tasks"]
    assert [r["status"] for r in rows] == ["done"] * TASKS, rows
    assert all(r["check"] is True for r in rows)
    return {r["key"]: git(repo, "diff", "main", r["branch"]) for r in rows}


@pytest.mark.timeout(900)
def test_a_batch_on_two_ray_nodes_survives_a_node_dying(
    tmp_path: Path, model: Model, mark: str
) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "notes.txt").write_text("".join(f"line {n}\n" for n in range(1, TASKS + 1)))
    git(repo, "commit", "-qam", "lines")

    model.gate.set()
    local = _write_tasks(tmp_path / "local", repo)
    pool = subprocess.run(
        [sys.executable, "-m", "karyi", "batch", str(local), "--jobs", "2"],
        env=_env(model, KARYI_API_KEY=KEY),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pool.returncode == 0, pool.stderr
    expected = _patches(repo, local.with_suffix(".report.json"))
    assert all(f"+LINE {n} edited" in "".join(expected.values()) for n in range(1, TASKS + 1))

    model.gate.clear()
    model.server.requests.clear()
    model.asking.clear()
    model.first_asks.clear()
    port = _free_port()
    ray_dir = Path(tempfile.mkdtemp(prefix="karyi-ray-"))  # short: Ray's socket paths
    nodes_env = _env(model)  # the nodes never get the key in their environment
    head = subprocess.Popen(
        [
            RAY,
            "start",
            "--head",
            f"--port={port}",
            "--include-dashboard=false",
            f"--temp-dir={ray_dir}",
            *NODE,
        ],
        env=nodes_env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    second = subprocess.Popen(
        [RAY, "start", f"--address=127.0.0.1:{port}", *NODE],
        env=nodes_env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        on_ray = _write_tasks(tmp_path / "on-ray", repo)
        err_file = (tmp_path / "batch.err").open("w+")
        batch = subprocess.Popen(
            [sys.executable, "-m", "karyi", "batch", str(on_ray), "--ray", f"127.0.0.1:{port}"],
            env=_env(model, KARYI_API_KEY=KEY),
            stdout=subprocess.DEVNULL,
            stderr=err_file,
        )
        model.wait_for_tasks(2)  # one CPU a node: one task runs on each
        running = set(model.asking)
        os.killpg(second.pid, signal.SIGKILL)
        second.wait()
        model.gate.set()
        code = batch.wait(timeout=900)
        err_file.close()
        said = (tmp_path / "batch.err").read_text()
        assert code == 0, said
        restarted = [n for n in running if model.first_asks[n] >= 2]
        assert len(restarted) == 1, (running, model.first_asks)  # Ray ran it again
        assert _patches(repo, on_ray.with_suffix(".report.json")) == expected
        assert {r.headers["authorization"] for r in model.server.requests} == {f"Bearer {KEY}"}
        leaked = subprocess.run(["grep", "-rl", KEY, str(ray_dir)], capture_output=True, text=True)
        assert leaked.stdout == ""
        assert git(repo, "status", "--porcelain") == ""
    finally:
        for proc in (head, second):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        shutil.rmtree(ray_dir, ignore_errors=True)
        for pid in marked(mark):
            if pid != os.getpid():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def test_without_ray_nothing_of_ray_is_imported() -> None:
    code = (
        "import sys, karyi.cli.batch, karyi.agent.background.batch, karyi.main;"
        "print([m for m in sys.modules if m == 'ray' or m.startswith('ray.')])"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.strip() == "[]", proc.stderr


def test_ray_without_an_address_is_a_usage_error(tmp_path: Path) -> None:
    tasks = tmp_path / "t.jsonl"
    tasks.write_text('{"repo": ".", "task": "x"}\n')
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    proc = subprocess.run(
        [sys.executable, "-m", "karyi", "batch", str(tasks), "--ray"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "--ray needs an ADDRESS, or RAY_ADDRESS" in proc.stderr
