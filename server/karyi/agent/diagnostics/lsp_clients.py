"""Karyi's own language-server clients: diagnostics where no editor gives them.

Front ends without an editor (`karyi run`, the gateway, other LSP editors, ACP) get the
problems of edited files from language servers Karyi starts itself, one per language
in `diagnostics.servers` (default: `ruff server` for Python; docs/context.md#diagnostics).
A server starts on first use and lives as long as the runtime. Each check opens or
updates the document with the text to judge and asks for its diagnostics: by a
`textDocument/diagnostic` pull when the server offers it, else by waiting for the
`textDocument/publishDiagnostics` of that version. A server that exits is started again
on the next check (up to `MAX_STARTS` times). The process and its JSON-RPC are the
navigation's client (`navigation/process.py`), the one client of Karyi's servers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from karyi.agent.diagnostics.problems import Problem
from karyi.core.plain_json import plain
from karyi.navigation.process import ServerProcess
from karyi.navigation.programs import find_program
from karyi.navigation.server import HANDLERS

MAX_STARTS = 3
ANSWER_SECONDS = 120.0
"""A request's own limit; the check's wait (`diagnostics.waitSeconds`) is shorter."""

CAPABILITIES: dict[str, Any] = {
    "textDocument": {
        "synchronization": {},
        "publishDiagnostics": {"versionSupport": True},
        "diagnostic": {},
    },
    "workspace": {"configuration": True},
}
"""What Karyi's client says it is: one root, diagnostics pushed or pulled."""

Waiter = asyncio.Future[list[dict[str, Any]]]


class ServerClient:
    """One language server process and the documents Karyi has open in it."""

    def __init__(self, language: str, command: Sequence[str], root: Path) -> None:
        self.language = language
        self.command = list(command)
        self.root = root
        self.label = " ".join(Path(self.command[0]).name.split() + self.command[1:2])
        self._server: ServerProcess | None = None
        self._starting: ServerProcess | None = None
        self._started: asyncio.Task[ServerProcess] | None = None
        self._starts = 0
        self._pull = False
        self._versions: dict[str, int] = {}
        self._pushed: dict[str, tuple[int | None, list[dict[str, Any]]]] = {}
        self._waiters: dict[str, tuple[int, Waiter]] = {}
        self._lock = asyncio.Lock()

    async def problems(self, files: Mapping[Path, str]) -> dict[Path, list[Problem]]:
        """The diagnostics of each file when it reads the text given."""
        async with self._lock:
            server = await self._ready()
            out: dict[Path, list[Problem]] = {}
            for path, text in files.items():
                raw = await self._diagnose(server, path.as_uri(), text)
                out[path] = [Problem.from_lsp(path, d) for d in raw]
            return out

    async def _ready(self) -> ServerProcess:
        if self._server is not None:
            if self._server.alive:
                return self._server
            self._server, self._started = None, None
            self._versions.clear()
        if self._started is None:
            if self._starts >= MAX_STARTS:
                raise RuntimeError(f"{self.label} exited {self._starts} times; not started again")
            self._starts += 1
            self._started = asyncio.ensure_future(self._start())
        # shielded: a check that times out leaves the start going for the next one
        return await asyncio.shield(self._started)

    async def _start(self) -> ServerProcess:
        if find_program(self.command[0]) is None:
            raise RuntimeError(f"{self.command[0]!r} was not found (diagnostics.servers)")
        server = ServerProcess(self.command, self.root, on_exit=self._on_exit)
        self._starting = server
        handlers = {**HANDLERS, "textDocument/publishDiagnostics": self._on_publish}
        await server.start(CAPABILITIES, handlers, limit=ANSWER_SECONDS)
        self._pull = bool(server.capabilities.get("diagnosticProvider"))
        self._server = server
        return server

    def _on_exit(self, reason: Exception) -> None:
        for _version, waiting in self._waiters.values():
            if not waiting.done():
                waiting.set_exception(reason)

    def _on_publish(self, params: Any) -> None:
        raw = plain(params) or {}
        uri, version = str(raw.get("uri", "")), raw.get("version")
        items = [dict(d) for d in raw.get("diagnostics") or []]
        self._pushed[uri] = (version, items)
        waiter = self._waiters.get(uri)
        fresh = waiter is not None and (version is None or version >= waiter[0])
        if waiter is not None and fresh and not waiter[1].done():
            waiter[1].set_result(items)

    async def _diagnose(self, server: ServerProcess, uri: str, text: str) -> list[dict[str, Any]]:
        version = self._versions.get(uri, 0) + 1
        self._versions[uri] = version
        waiter: Waiter = asyncio.get_running_loop().create_future()
        self._waiters[uri] = (version, waiter)
        try:
            if version == 1:
                item = {"uri": uri, "languageId": self.language, "version": version, "text": text}
                server.notify("textDocument/didOpen", {"textDocument": item})
            else:
                server.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": text}],
                    },
                )
            if not self._pull:
                return await waiter
            report = await server.request(
                "textDocument/diagnostic", {"textDocument": {"uri": uri}}, ANSWER_SECONDS
            )
            items = (report or {}).get("items")
            if items is None:  # "unchanged": what it reported last time
                return self._pushed.get(uri, (None, []))[1]
            raw = [dict(d) for d in items]
            self._pushed[uri] = (version, raw)
            return raw
        finally:
            self._waiters.pop(uri, None)

    async def aclose(self) -> None:
        """Shut the server down (politely, then by force; at once if it never answered)."""
        server = self._server or self._starting
        started, self._started = self._started, None
        self._server = self._starting = None
        if server is not None:
            await server.aclose()
        if started is not None:
            started.cancel()
            await asyncio.gather(started, return_exceptions=True)
