"""Memory over a long session: N agent turns in one language server process (issue
[hardening]).

One `karyi lsp --stdio` runs `--turns` turns (default 10,000) against the fake model
server: in rotation a read, an edit, a command and a cancelled turn (the model stalls,
the client sends `karyi/cancel`), ten turns per session, then a new session. Every
1,000 turns it prints the server's resident memory and open file descriptors. Target:
RSS grows < 20 MB after the first 1,000 turns; descriptors stay flat.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import BaseLanguageClient

# The repository root, for tests.support: tests/ itself on the path would stand in
# for packages named like its folders (tests/acp for the ACP SDK, tests/secrets for
# the standard library's secrets).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Fault, Reply

REPORT_EVERY = 1000
PER_SESSION = 10
TARGET_MB = 20.0
TURNS = 10_000
SMOKE: dict[str, object] = {"TURNS": 24, "REPORT_EVERY": 8}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""


def rss_mb(pid: int) -> float:
    """Resident memory of a process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def open_fds(pid: int) -> int:
    """How many file descriptors a process has open."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def turn_replies(n: int, root: Path) -> tuple[list[Reply], bool]:
    """The model's replies for turn `n`, and whether the client cancels it."""
    kind = n % 4
    if kind == 0:
        call = '<tools><read><file src="README.md"/></read></tools>'
    elif kind == 1:
        old, new = ("alpha", "beta") if n % 8 == 1 else ("beta", "alpha")
        call = (
            f'<tools><edit><file src="notes.txt"><find>{old}</find>'
            f"<replace>{new}</replace></file></edit></tools>"
        )
    elif kind == 2:
        call = f"<tools><command>echo turn {n}</command></tools>"
    else:
        return [Reply(text="Thinking about it " * 4)], True
    return [Reply(text=call), Reply(text=f"Done with turn {n}.")], False


class Soak:
    """The client side: one server, its turnUpdates, and the turns."""

    def __init__(self, fake: FakeModelServer, root: Path) -> None:
        self.fake = fake
        self.root = root
        self.client = BaseLanguageClient("soak", "0")
        self.running = ""  # the session of the turn that sent the last step
        self.stepped = asyncio.Event()

        @self.client.feature("karyi/turnUpdate")
        def update(params: Any) -> None:
            if params.event.type == "step":
                self.running = str(params.sessionId)
                self.stepped.set()

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def log_message(params: Any) -> None:
            """Not measured."""

        @self.client.feature("karyi/terminalOutput")
        def terminal_output(params: Any) -> None:
            """Not measured."""

    async def start(self) -> int:
        env = {**os.environ, "OPENAI_API_KEY": "sk-soak"}
        await self.client.start_io(sys.executable, "-m", "karyi", "lsp", "--stdio", env=env)
        settings = {
            "model": "openai:soak-model",
            "baseUrl": self.fake.openai_url,
            "permissions": {"tools": {"command": "auto", "edit": "auto"}},
        }
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=self.root.as_uri(),
                initialization_options={"karyi": {"ui": True}, "settings": settings},
            )
        )
        self.client.initialized(types.InitializedParams())
        return self.client._server.pid  # type: ignore[union-attr]

    async def turn(self, n: int, session: str | None) -> str:
        replies, cancel = turn_replies(n, self.root)
        self.fake.requests.clear()
        if cancel:
            self.fake.fail_next(Fault(stall=True))
        self.fake.script(*replies)
        params: dict[str, Any] = {"message": f"turn {n}"}
        if session:
            params["sessionId"] = session
        self.stepped.clear()
        chat = asyncio.ensure_future(self.client.protocol.send_request_async("karyi/chat", params))
        if cancel:  # once the model's request arrived (it stalls), cancel the turn
            await self.stepped.wait()
            await asyncio.to_thread(self.fake.wait_requests, 1, 60)
            cancel_params = {"sessionId": self.running}
            await self.client.protocol.send_request_async("karyi/cancel", cancel_params)
            self.fake.replies.clear()
            self.fake.faults.clear()
        began = time.perf_counter()
        result = await chat
        if time.perf_counter() - began > 2:
            print(f"slow turn {n}: {time.perf_counter() - began:.1f} s", file=sys.stderr)
        return str(result.sessionId)

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def soak(turns: int, report: Any) -> dict[str, float]:
    fake = FakeModelServer().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "README.md").write_text("# Soak\n" * 20)
            (root / "notes.txt").write_text("alpha\n")
            s = Soak(fake, root)
            pid = await s.start()
            marks: list[tuple[int, float, int]] = []
            session: str | None = None
            began = time.perf_counter()
            for n in range(1, turns + 1):
                if (n - 1) % PER_SESSION == 0:
                    session = None
                session = await s.turn(n, session)
                if n % REPORT_EVERY == 0 or n == turns:
                    marks.append((n, rss_mb(pid), open_fds(pid)))
                    took = time.perf_counter() - began
                    report(
                        f"turn {n:6d}: RSS {marks[-1][1]:7.1f} MB, {marks[-1][2]} fds "
                        f"({took / n * 1000:.1f} ms/turn)"
                    )
            await s.stop()
    finally:
        fake.stop()
    first = marks[0][1]
    growth = marks[-1][1] - first
    report(
        f"growth after turn {marks[0][0]}: {growth:+.1f} MB (target < {TARGET_MB:.0f} MB); "
        f"fds {marks[0][2]} -> {marks[-1][2]}"
    )
    return {"rss_first_mb": first, "rss_last_mb": marks[-1][1], "growth_mb": growth}


def main(argv: list[str] | None = None, report: Any = print) -> dict[str, float]:
    """Run the soak (`benches/run.py` calls it with no arguments: 10,000 turns)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=TURNS)
    args = parser.parse_args(argv if argv is not None else [])
    return asyncio.run(soak(args.turns, report))


if __name__ == "__main__":
    main(sys.argv[1:])
