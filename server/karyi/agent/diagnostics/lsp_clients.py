"""Karyi's own language-server clients: diagnostics where no editor gives them.

Front ends without an editor (`karyi run`, the gateway, other LSP editors, ACP) get the
problems of edited files from language servers Karyi starts itself, one per language
in `diagnostics.servers` (default: `ruff server` for Python; docs/context.md#diagnostics).
A server starts on first use and lives as long as the runtime. Each check opens or
updates the document with the text to judge and asks for its diagnostics: by a
`textDocument/diagnostic` pull when the server offers it, else by waiting for the
`textDocument/publishDiagnostics` of that version. A server that exits is started again
on the next check (up to `MAX_STARTS` times).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol

from karyi.agent.diagnostics.problems import Problem
from karyi.core.plain_json import plain
from karyi.navigation.programs import find_program

log = logging.getLogger(__name__)

MAX_STARTS = 3
STOP_SECONDS = 2.0


class _RawResults(LanguageServerProtocol):
    """Results as plain JSON: servers answer `initialize` with capabilities lsprotocol
    cannot always convert (ruff's notebook sync), and a failed conversion would stop
    reading the server; Karyi reads the few fields it needs itself."""

    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        return None


class ServerClient:
    """One language server process and the documents Karyi has open in it."""

    def __init__(self, language: str, command: Sequence[str], root: Path) -> None:
        self.language = language
        self.command = list(command)
        self.root = root
        self.label = " ".join(Path(self.command[0]).name.split() + self.command[1:2])
        self._client: LanguageClient | None = None
        self._starting: LanguageClient | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._started: asyncio.Task[LanguageClient] | None = None
        self._starts = 0
        self._pull = False
        self._versions: dict[str, int] = {}
        self._pushed: dict[str, tuple[int | None, list[dict[str, Any]]]] = {}
        self._waiters: dict[str, tuple[int, asyncio.Future[list[dict[str, Any]]]]] = {}
        self._lock = asyncio.Lock()

    async def problems(self, files: Mapping[Path, str]) -> dict[Path, list[Problem]]:
        """The diagnostics of each file when it reads the text given."""
        async with self._lock:
            client = await self._ready()
            out: dict[Path, list[Problem]] = {}
            for path, text in files.items():
                raw = await self._diagnose(client, path.as_uri(), text)
                out[path] = [Problem.from_lsp(path, d) for d in raw]
            return out

    async def _ready(self) -> LanguageClient:
        if self._client is not None and self._process is not None:
            if self._process.returncode is None:
                return self._client
            self._client, self._started = None, None
            self._versions.clear()
        if self._started is None:
            if self._starts >= MAX_STARTS:
                raise RuntimeError(f"{self.label} exited {self._starts} times; not started again")
            self._starts += 1
            self._started = asyncio.ensure_future(self._start())
        # shielded: a check that times out leaves the start going for the next one
        return await asyncio.shield(self._started)

    async def _start(self) -> LanguageClient:
        program = find_program(self.command[0])
        if program is None:
            raise RuntimeError(f"{self.command[0]!r} was not found (diagnostics.servers)")
        client = LanguageClient("karyi", "1", protocol_cls=_RawResults)

        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            self._on_publish(params)

        def ignore(_params: object) -> None:
            return None

        def on_configuration(params: types.ConfigurationParams) -> list[None]:
            return [None for _ in params.items]

        client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(on_publish)
        client.feature(types.WINDOW_LOG_MESSAGE)(ignore)
        client.feature(types.WINDOW_SHOW_MESSAGE)(ignore)
        client.feature(types.WORKSPACE_CONFIGURATION)(on_configuration)

        process = await asyncio.create_subprocess_exec(
            program,
            *self.command[1:],
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=self.root,
            start_new_session=True,
        )
        assert process.stdin is not None and process.stdout is not None
        client.protocol.set_writer(process.stdin)
        reader = asyncio.ensure_future(
            run_async(
                stop_event=client._stop_event, reader=process.stdout, protocol=client.protocol
            )
        )
        client._async_tasks.append(reader)
        self._process, self._starting = process, client
        client._async_tasks.append(asyncio.ensure_future(self._watch_exit(process, client)))
        result: Any = await client.protocol.send_request_async(
            types.INITIALIZE,
            _initialize_params(self.root),
        )
        capabilities = (plain(result) or {}).get("capabilities") or {}
        self._pull = bool(capabilities.get("diagnosticProvider"))
        client.initialized(types.InitializedParams())
        self._client = client
        return client

    async def _watch_exit(
        self, process: asyncio.subprocess.Process, client: LanguageClient
    ) -> None:
        await process.wait()
        reason = RuntimeError(f"{self.label} exited with code {process.returncode}")
        for fut in list(client.protocol._request_futures.values()):
            if not fut.done():
                fut.set_exception(reason)
        for _version, waiting in self._waiters.values():
            if not waiting.done():
                waiting.set_exception(reason)
        client._stop_event.set()

    def _on_publish(self, params: types.PublishDiagnosticsParams) -> None:
        converter = self._client.protocol._converter if self._client else None
        items = [converter.unstructure(d) if converter else {} for d in params.diagnostics]
        self._pushed[params.uri] = (params.version, items)
        waiter = self._waiters.get(params.uri)
        fresh = waiter is not None and (params.version is None or params.version >= waiter[0])
        if waiter is not None and fresh and not waiter[1].done():
            waiter[1].set_result(items)

    async def _diagnose(self, client: LanguageClient, uri: str, text: str) -> list[dict[str, Any]]:
        version = self._versions.get(uri, 0) + 1
        self._versions[uri] = version
        waiter: asyncio.Future[list[dict[str, Any]]] = asyncio.get_running_loop().create_future()
        self._waiters[uri] = (version, waiter)
        try:
            if version == 1:
                doc = types.TextDocumentItem(uri, self.language, version, text)
                client.text_document_did_open(types.DidOpenTextDocumentParams(doc))
            else:
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        types.VersionedTextDocumentIdentifier(version, uri),
                        [types.TextDocumentContentChangeWholeDocument(text)],
                    )
                )
            if not self._pull:
                return await waiter
            report: Any = await client.protocol.send_request_async(
                types.TEXT_DOCUMENT_DIAGNOSTIC,
                types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri)),
            )
            items = (plain(report) or {}).get("items")
            if items is None:  # "unchanged": what it reported last time
                return self._pushed.get(uri, (None, []))[1]
            raw = [dict(d) for d in items]
            self._pushed[uri] = (version, raw)
            return raw
        finally:
            self._waiters.pop(uri, None)

    async def aclose(self) -> None:
        """Shut the server down (politely, then by force)."""
        ready, client, process = self._client, self._starting, self._process
        started, self._started = self._started, None
        self._client = self._starting = self._process = None
        if process is not None and process.returncode is None:
            if ready is not None:  # a server that never answered initialize is not asked
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ready.shutdown_async(None), STOP_SECONDS)
                    ready.exit(None)
            try:
                await asyncio.wait_for(process.wait(), STOP_SECONDS if ready else 0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, 9)
                await process.wait()
        if started is not None:
            started.cancel()
            await asyncio.gather(started, return_exceptions=True)
        if client is not None:
            client._stop_event.set()
            for task in client._async_tasks:
                task.cancel()
            await asyncio.gather(*client._async_tasks, return_exceptions=True)


def _initialize_params(root: Path) -> types.InitializeParams:
    """What Karyi's client says it is: one root, diagnostics pushed or pulled."""
    return types.InitializeParams(
        process_id=os.getpid(),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
        capabilities=types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                synchronization=types.TextDocumentSyncClientCapabilities(),
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                    version_support=True
                ),
                diagnostic=types.DiagnosticClientCapabilities(),
            ),
            workspace=types.WorkspaceClientCapabilities(configuration=True),
        ),
    )
