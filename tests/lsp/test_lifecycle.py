"""Server lifecycle: cancellation, clean shutdown, disconnects, settings, TCP."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from karyi.core.plain_json import plain
from tests.lsp.conftest import Start, request, wait_for_event
from tests.support.fake_model_server import FakeModelServer
from tests.support.procs import host_pid, marked, running
from tests.support.replies import Fault, Reply
from tests.support.waiting import eventually, eventually_sync, pid_in

SLEEPER = "<tools><command>sleep 300 &\necho $! > sleep.pid; wait</command></tools>"
UNATTENDED = {
    "permissions": {
        "tools": {"command": "auto"},
        "commands": {"allow": ["sleep *", "echo *", "wait"]},
    }
}
AUTO = {"permissions": {"tools": {"command": "auto"}}}


async def pid_when_written(path: Path) -> int:
    # no event says "the pid file is written"
    return await eventually(lambda: pid_in(path), "the command writes its pid")


async def test_cancel_request_cancels_the_turn(lsp: Start, fake_llm: FakeModelServer) -> None:
    fake_llm.script(Reply(text="words " * 50))
    fake_llm.fail_next(Fault(stall=True))
    client = await lsp()
    future = client.protocol.send_request("karyi/chat", {"message": "talk"})
    await wait_for_event(client, "step")
    [msg_id] = [i for i, f in client.protocol._request_futures.items() if f is future]
    client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))  # as editors do
    finished = await wait_for_event(client, "turnFinished")
    assert finished["stopReason"] == "cancelled"
    result = plain(await asyncio.wrap_future(future))  # the turn's result, as documented
    assert result["stopReason"] == "cancelled"
    assert result["turnId"] == finished["turnId"]


async def test_shutdown_kills_every_child(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path, mark: str
) -> None:
    fake_llm.script(Reply(text=SLEEPER))
    client = await lsp(settings=AUTO)
    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "wait"}))
    # a redirection to a file needs the user's yes even with `command: auto` (command rules)
    awaiting = await wait_for_event(client, "toolAwaitingPermission")
    sid = client.updates[0]["sessionId"]
    await request(
        client,
        "karyi/confirmTool",
        {"sessionId": sid, "toolCallId": awaiting["call"]["id"], "outcome": "allowOnce"},
    )
    pid = host_pid(await pid_when_written(ws_root / "sleep.pid"), mark)
    assert pid is not None and running(pid)
    await client.shutdown_session()
    assert not running(pid) and marked(mark) == []
    chat.cancel()


def test_a_client_that_disconnects_mid_turn_leaves_no_process(
    fake_llm: FakeModelServer, ws_root: Path, _isolated_config: Path, mark: str
) -> None:
    fake_llm.script(Reply(text="<tools><command>sleep 300 &\necho PID=$!; wait</command></tools>"))
    env = {**os.environ, "KARYI_CONFIG_DIR": str(_isolated_config), "OPENAI_API_KEY": "sk"}
    server = subprocess.Popen(
        [sys.executable, "-m", "karyi", "lsp", "--stdio"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None and server.stdout is not None
    stdin, stdout = server.stdin, server.stdout

    def send(msg: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        stdin.flush()

    def read_until_pid() -> int:
        while True:  # LSP frames, until the command's output names the sleeper
            length = int(stdout.readline().split(b":")[1])
            stdout.readline()
            frame = stdout.read(length)
            if m := re.search(rb"PID=(\d+)", frame):
                return int(m.group(1))

    send(
        {
            "id": 1,
            "method": "initialize",
            "params": {
                "capabilities": {},
                "rootUri": ws_root.as_uri(),
                "initializationOptions": {
                    "karyi": {"ui": True},
                    "settings": {"model": "openai:m", "baseUrl": fake_llm.openai_url, **UNATTENDED},
                },
            },
        }
    )
    send({"method": "initialized", "params": {}})
    send({"id": 2, "method": "karyi/chat", "params": {"message": "wait"}})
    pid = host_pid(read_until_pid(), mark)
    assert pid is not None and running(pid)
    stdin.close()  # the editor went away mid-turn
    assert server.wait(timeout=60) is not None
    assert not running(pid) and marked(mark) == []


async def test_configuration_changes_apply_to_the_next_turn(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="one"), Reply(text="two"))
    client = await lsp()
    await request(client, "karyi/chat", {"message": "hi"})
    assert fake_llm.requests[0].body["model"] == "test-model"
    client.set_configuration({"model": "openai:other-model"}, section="karyi")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    while not any("other-model" in m.message for m in client.log_messages):
        await client.wait_for_notification("window/logMessage")
    result = await request(client, "karyi/chat", {"message": "again"})
    assert result.finalAnswer == "two"
    assert fake_llm.requests[1].body["model"] == "other-model"


def _connected(port: int) -> socket.socket | None:
    try:
        return socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        return None


def test_tcp_mode(ws_root: Path, _isolated_config: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "KARYI_CONFIG_DIR": str(_isolated_config)}
    server = subprocess.Popen(
        [sys.executable, "-m", "karyi", "lsp", "--tcp", f"127.0.0.1:{port}"],
        env=env,
        stderr=subprocess.DEVNULL,
    )
    try:
        conn = eventually_sync(lambda: _connected(port), "the server opens its port")
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"capabilities": {}, "rootUri": ws_root.as_uri()},
            }
        ).encode()
        conn.sendall(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        data = b""
        while b'"result"' not in data:
            data += conn.recv(65536)
        assert b'"name":"karyi"' in data.replace(b" ", b"")
        conn.close()
    finally:
        server.kill()
        server.wait()


@pytest.mark.parametrize("bad", ["localhost", "host:port"])
def test_tcp_needs_host_and_port(bad: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "karyi", "lsp", "--tcp", bad],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "expected HOST:PORT" in proc.stderr
