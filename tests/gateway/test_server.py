"""The gateway behind a real uvicorn on a random loopback port, and `karyi gateway` as a
real process: real sockets, real streaming, concurrent clients."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest_asyncio
import uvicorn

from karyi.agent.runtime import Runtime
from karyi.gateway.server import _redact_server_logs
from karyi.settings import Settings
from tests.gateway.conftest import Make, Rig, Served
from tests.gateway.sse import parse_sse
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Fault, Reply

WAIT = 30.0  # generous bound for a process to start or stop


def tool(name: str, params: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**extra, "biz_params": {"tool": {"name": name, "input": params}}}


class TestRealServer:
    """Requests over TCP to uvicorn serving the app."""

    @pytest_asyncio.fixture
    async def live(
        self, make: Make, fake_llm: FakeModelServer, served: type[Served]
    ) -> AsyncIterator[tuple[Rig, httpx.AsyncClient]]:
        rig = make(fake=fake_llm, token="real-server-token-0123456789", max_request_bytes=256_000)
        async with served(rig.app) as server:
            headers = {"authorization": "Bearer real-server-token-0123456789"}
            async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=WAIT) as c:
                yield rig, c

    async def test_read_file_over_tcp(self, live: tuple[Rig, httpx.AsyncClient]) -> None:
        _, client = live
        r = await client.post("/agent/process", json=tool("read_file", {"path": "src/main.py"}))
        assert r.json() == {
            "ok": True,
            "path": "src/main.py",
            "size": 12,
            "truncated": False,
            "content": "print('hi')\n",
            "text": "print('hi')\n",
        }

    async def test_the_token_is_enforced_on_the_socket(
        self, live: tuple[Rig, httpx.AsyncClient]
    ) -> None:
        _, client = live
        r = await client.get("/health", headers={"authorization": "Bearer nope"})
        assert r.status_code == 401

    async def test_a_huge_body_gets_413_not_a_reset(
        self, live: tuple[Rig, httpx.AsyncClient]
    ) -> None:
        _, client = live
        body = tool("create_file", {"path": "huge.txt", "content": "x" * 3_000_000})
        r = await client.post("/agent/process", json=body)
        assert (r.status_code, r.json()["error"]["code"]) == (413, "payload_too_large")

    async def test_events_stream_while_the_turn_runs(
        self, live: tuple[Rig, httpx.AsyncClient], fake_llm: FakeModelServer
    ) -> None:
        """The first events arrive while the model is still (stalled) mid-reply; a cancel
        from a second connection ends the stream with the result."""
        _, client = live
        fake_llm.script(Reply(text="a reply that never finishes"))
        fake_llm.fail_next(Fault(stall=True, after=2))
        body = {"input": [{"content": "go"}], "session_id": "s1", "stream": True}
        async with client.stream("POST", "/agent/process", json=body) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            lines = response.aiter_lines()
            read: list[str] = []
            async for line in lines:
                read.append(line)
                if line == "event: step":
                    break
            busy = await client.post("/agent/process", json={**body, "stream": False})
            assert busy.status_code == 409
            cancel = {"session_id": "s1", "biz_params": {"cancel": True}}
            r = await client.post("/agent/process", json=cancel)
            assert r.json()["stop_reason"] == "cancelled"
            read += [line async for line in lines]
        events = parse_sse("\n".join(read))
        assert [e.event for e in events[:2]] == ["turnStarted", "step"]
        assert events[-1].event == "result"
        assert events[-1].data["stop_reason"] == "cancelled"

    async def test_concurrent_creates_of_one_file_create_once(
        self, live: tuple[Rig, httpx.AsyncClient], ws_root: Path
    ) -> None:
        _, client = live
        bodies = [
            tool("create_file", {"path": "race.txt", "content": f"writer {i}\n"}) for i in range(30)
        ]
        replies = await asyncio.gather(*(client.post("/agent/process", json=b) for b in bodies))
        statuses = sorted(r.status_code for r in replies)
        assert statuses == [200] + [409] * 29
        (winner,) = [i for i, r in enumerate(replies) if r.status_code == 200]
        assert (ws_root / "race.txt").read_text() == f"writer {winner}\n"

    async def test_concurrent_overwrites_leave_one_whole_file(
        self, live: tuple[Rig, httpx.AsyncClient], ws_root: Path
    ) -> None:
        _, client = live
        contents = [chr(ord("a") + i) * 100_000 for i in range(20)]
        bodies = [tool("update_file", {"path": "README.md", "content": c}) for c in contents]
        replies = await asyncio.gather(*(client.post("/agent/process", json=b) for b in bodies))
        assert [r.status_code for r in replies] == [200] * 20
        assert (ws_root / "README.md").read_text() in contents
        leftovers = [p.name for p in ws_root.iterdir() if p.name.startswith(".README")]
        assert leftovers == [], "no temporary files left behind"

    async def test_concurrent_appends_all_land_whole(
        self, live: tuple[Rig, httpx.AsyncClient], ws_root: Path
    ) -> None:
        _, client = live
        lines = [f"line {i:02d} " + "z" * 500 + "\n" for i in range(40)]
        bodies = [
            tool("update_file", {"path": "log.txt", "content": line, "mode": "append"})
            for line in lines
        ]
        (ws_root / "log.txt").write_text("")
        replies = await asyncio.gather(*(client.post("/agent/process", json=b) for b in bodies))
        assert [r.status_code for r in replies] == [200] * 40
        written = (ws_root / "log.txt").read_text().splitlines(keepends=True)
        assert sorted(written) == sorted(lines)


def _read_banner(proc: subprocess.Popen[str]) -> str:
    """The first line `karyi gateway` prints (its URL), read in a thread so a hung start
    fails the test after WAIT instead of blocking it."""
    got: list[str] = []
    reader = threading.Thread(
        target=lambda: got.append(proc.stderr.readline() if proc.stderr else "")
    )
    reader.start()
    reader.join(WAIT)
    assert got and got[0], "karyi gateway printed nothing"
    return got[0]


def test_karyi_gateway_serves_until_sigterm(ws_root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "KARYI_GATEWAY_TOKEN"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "karyi", "gateway", "--workspace", str(ws_root), "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        banner = _read_banner(proc)
        match = re.match(r"karyi gateway: (http://127\.0\.0\.1:\d+) · workspace (\S+) · ", banner)
        assert match, banner
        assert match.group(2) == str(ws_root)
        assert "shell disabled · token not required (loopback only)" in banner
        url = match.group(1)
        assert httpx.get(f"{url}/health", timeout=WAIT).json()["ok"] is True
        r = httpx.post(
            f"{url}/agent/process", json=tool("read_file", {"path": "README.md"}), timeout=WAIT
        )
        assert r.json()["content"] == "# Demo\n\nHello.\n"
        proc.send_signal(signal.SIGTERM)
        # uvicorn shuts down gracefully, then hands the signal on: karyi exits 128+15,
        # like every karyi command stopped by SIGTERM.
        assert proc.wait(WAIT) == 128 + signal.SIGTERM
        assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_uvicorn_log_handlers_redact_secrets(ws_root: Path) -> None:
    """uvicorn makes its own log handlers; a secret in a server log line is redacted."""
    uvicorn.Config(app=None, log_level="info")  # installs uvicorn's handlers
    runtime = Runtime.open(ws_root, Settings())
    runtime.vault.remember("TOKEN", "value-that-must-not-be-logged")
    _redact_server_logs(runtime)
    (handler,) = logging.getLogger("uvicorn").handlers
    assert isinstance(handler, logging.StreamHandler)
    stream = io.StringIO()
    before = handler.setStream(stream)
    try:
        logging.getLogger("uvicorn.error").error("client sent value-that-must-not-be-logged")
    finally:
        handler.setStream(before)
        runtime.close()
    assert "value-that-must-not-be-logged" not in stream.getvalue()
    assert "$KARYI{TOKEN}" in stream.getvalue()
