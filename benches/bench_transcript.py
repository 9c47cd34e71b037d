"""Bringing back a long session: `karyi/loadSession` of a 1,000-turn session over LSP,
against reading the same session's rows from SQLite in the same run.

The session is written through the store as turns write it: each turn a user message,
the model's prose with a ToolsXML `<read>` call, the result fed back, a final answer,
and the recorded call. The baseline reads its messages, calls and turns
(`SessionStore.message_rows`, `calls`, `turns`): the floor of any answer. The measure is
the whole request as an editor sees it: the transcript built with the dialect, made JSON,
sent over stdio and parsed by the client (plain JSON-RPC framing and `json.loads`, as an
editor's client does). Target: <= 3x the rows.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from karyi.agent.session.store import SessionStore, ToolCallRecord
from karyi.llm.base import Message

TURNS = 1000
RUNS = 7
SMOKE: dict[str, object] = {"TURNS": 5, "RUNS": 1}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""

READ = '<tools><read><file src="README.md"/></read></tools>'


def write_session(root: Path, turns: int) -> str:
    """A stored session of `turns` turns in `root`'s store; its id."""
    store = SessionStore.for_workspace(root)
    sid = store.create(model="openai:bench", dialect="toolsxml", profile="karyi", title="bench")
    for n in range(turns):
        turn = f"t{n:05d}"
        store.start_turn(sid, turn, f"question {n}: what does the README say?", "")
        store.append(sid, turn, Message("user", f"question {n}: what does the README say?"))
        store.append(sid, turn, Message("assistant", f"Let me look at it, step {n}.\n{READ}"))
        result = f"<tools_result><read>README.md: hello {n}</read></tools_result>"
        store.append(sid, turn, Message("user", result, name="tool_results"))
        store.append(sid, turn, Message("assistant", f"It says hello {n}."))
        record = ToolCallRecord(
            turn,
            f"call_{n}",
            "read",
            {"files": [{"src": "README.md"}]},
            "auto",
            True,
            None,
            {
                "success": True,
                "llm_content": f"hello {n}",
                "display": "Read 1 file",
                "data": None,
                "error": None,
                "metadata": {},
            },
        )
        store.record_call(sid, turn, record, 0.0, 0.0)
        store.finish_turn(sid, turn, "end_turn", 100, 20)
    store.close()
    return sid


def read_rows(root: Path, sid: str) -> float:
    """Seconds to read the session's messages, calls and turns straight from SQLite."""
    store = SessionStore.for_workspace(root)
    began = time.perf_counter()
    store.message_rows(sid)
    store.calls(sid)
    store.turns(sid)
    took = time.perf_counter() - began
    store.close()
    return took


class RawClient:
    """JSON-RPC over the server's stdio with nothing in between: what an editor's client
    pays is the JSON itself (pygls's own client would add its object conversion)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 0

    async def send(self, method: str, params: object, *, notify: bool = False) -> None:
        message: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await self.proc.stdin.drain()

    async def answer(self) -> Any:
        """The result of the last request (skipping the server's notifications)."""
        assert self.proc.stdout is not None
        while True:
            length = 0
            while (line := await self.proc.stdout.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(await self.proc.stdout.readexactly(length))
            if message.get("id") == self.next_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]

    async def request(self, method: str, params: object) -> Any:
        await self.send(method, params)
        return await self.answer()


async def load_over_lsp(root: Path, sid: str, runs: int) -> list[float]:
    """Seconds per `karyi/loadSession` of `sid` from a real `karyi lsp --stdio`."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "karyi",
        "lsp",
        "--stdio",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=1 << 26,
    )
    client = RawClient(proc)
    options = {"settings": {"model": "openai:bench", "baseUrl": "http://127.0.0.1:9"}}
    init = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
    await client.request("initialize", {**init, "initializationOptions": options})
    await client.send("initialized", {}, notify=True)
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        loaded = await client.request("karyi/loadSession", {"sessionId": sid})
        times.append(time.perf_counter() - began)
    turns = loaded["transcript"]["turns"]
    assert len(turns) == TURNS and "<tools" not in turns[-1]["blocks"][0]["text"], (
        "not a transcript"
    )
    await client.request("shutdown", None)
    await client.send("exit", None, notify=True)
    await proc.wait()
    return times


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "README.md").write_text("hello\n")
        began = time.perf_counter()
        sid = write_session(root, TURNS)
        wrote = time.perf_counter() - began
        rows = [read_rows(root, sid) for _ in range(RUNS)]
        loads = asyncio.run(load_over_lsp(root, sid, RUNS))
    first, rest = loads[0], loads[1:] or loads
    floor = statistics.median(rows)
    over = statistics.median(rest)
    print(f"a session of {TURNS} turns ({4 * TURNS} messages) written in {wrote:.1f} s")
    print(f"rows from SQLite:          {floor * 1000:8.1f} ms (median of {RUNS})")
    print(
        f"karyi/loadSession over LSP: {over * 1000:8.1f} ms (median of {len(rest)};"
        f" the first, loading the session: {first * 1000:.1f} ms)"
    )
    print(f"ratio {over / floor:.2f}x the rows (target <= 3x)")


if __name__ == "__main__":
    main()
