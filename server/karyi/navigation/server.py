"""One language's server for one workspace: on demand, warm while used, stopped when idle.

`NavServer` owns a `ServerProcess` and what the server must see: before every request
it opens (or updates, or closes) the documents whose text differs from the disk, the
editor's unsaved buffers (the overlay, `Overlay`), so answers match what the user sees.
A server that exits is started again once; a second exit fails the call with a clear
message. Every request has a timeout; a server left unused for `idle_seconds` is shut
down and starts again on the next call (docs/context.md#where-navigation-answers-come-from).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from karyi.core.plain_json import plain
from karyi.navigation.errors import ServerGone
from karyi.navigation.places import uri_path

if TYPE_CHECKING:
    from karyi.navigation.process import ServerProcess

CLIENT_CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "workspace": {
        "configuration": True,
        "workspaceFolders": True,
        "symbol": {"symbolKind": {"valueSet": list(range(1, 27))}},
        "didChangeWatchedFiles": {"dynamicRegistration": True},
        "workspaceEdit": {"documentChanges": True},
    },
    "textDocument": {
        "synchronization": {"dynamicRegistration": False},
        "definition": {"linkSupport": False},
        "references": {},
        "hover": {"contentFormat": ["plaintext", "markdown"]},
        "documentSymbol": {
            "hierarchicalDocumentSymbolSupport": True,
            "symbolKind": {"valueSet": list(range(1, 27))},
        },
        "rename": {"prepareSupport": True},
        "callHierarchy": {},
    },
}
"""What Karyi's client says it can do: enough for the navigation tools, nothing more."""


DISK_DOCUMENTS = 32
"""How many files the server is asked about stay open in it (beyond the buffers)."""

OPENS_TO_ANSWER = frozenset({"typescript-language-server"})
"""Servers that answer only for open documents (tsserver: "No Project"): the file a
request is about is opened first. Others are not, since an open file is one they check
in full (basedpyright then answers an outline only after type-checking the file)."""


def _document(params: Any) -> Path | None:
    """The file a request is about (`textDocument.uri`), if any."""
    if not isinstance(params, dict):
        return None
    uri = (params.get("textDocument") or {}).get("uri")
    if not isinstance(uri, str) or not uri.startswith("file://"):
        return None
    return uri_path(uri)


class Overlay(Protocol):
    """The texts the server must be told about: open buffers that differ from the disk."""

    def texts(self, extensions: frozenset[str]) -> dict[Path, str]:
        """Each unsaved buffer with one of `extensions`, by path."""
        ...


def _answer_none(_params: Any) -> None:
    return None


def _configuration(params: Any) -> list[None]:
    items = getattr(params, "items", None) or []
    return [None for _ in items]


READY_MESSAGES = {
    "basedpyright-langserver": r"Found \d+ source files?",
    "pyright-langserver": r"Found \d+ source files?",
}
"""The log message by which a server says it has listed the workspace's files: before
it, pyright's family answers `workspace/symbol` and `references` from no files at all."""

LOADING_PROGRESS = {"typescript-language-server": r"Initializing JS/TS"}
"""The work-done progress by which a server says it is loading a project: until it ends,
tsserver answers from the files loaded so far (a first `references` found 2 of 21), so
an answer given while it runs is asked for again once it has ended."""


class _Loading:
    """The server's project-loading progress (`LOADING_PROGRESS`): `done` is set when
    none is under way."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.tokens: set[str] = set()
        self.done = asyncio.Event()
        self.done.set()

    def on_progress(self, params: Any) -> None:
        raw = plain(params) or {}
        token, value = str(raw.get("token")), raw.get("value") or {}
        if value.get("kind") == "begin" and re.search(self.pattern, str(value.get("title"))):
            self.tokens.add(token)
            self.done.clear()
        elif value.get("kind") == "end" and token in self.tokens:
            self.tokens.discard(token)
            if not self.tokens:
                self.done.set()


HANDLERS: dict[str, Callable[[Any], Any]] = {
    "workspace/configuration": _configuration,
    "client/registerCapability": _answer_none,
    "client/unregisterCapability": _answer_none,
    "window/workDoneProgress/create": _answer_none,
    "window/logMessage": _answer_none,
    "window/showMessage": _answer_none,
    "textDocument/publishDiagnostics": _answer_none,
    "$/progress": _answer_none,
    "$/typescriptVersion": _answer_none,
}
"""What a server asks or tells its client, answered so that it never waits on Karyi."""


class NavServer:
    """The language server of one language in one workspace (see the module docstring)."""

    def __init__(
        self,
        language: str,
        command: list[str],
        extensions: Iterable[str],
        root: Path,
        overlay: Overlay,
        *,
        timeout: float,
        idle_seconds: float,
    ) -> None:
        self.language = language
        self.command = command
        self.extensions = frozenset(e.lower() for e in extensions)
        self.root = root
        self.overlay = overlay
        self.timeout = timeout
        self.idle_seconds = idle_seconds
        self.process: ServerProcess | None = None
        self.starts = 0
        self.crashes = 0
        self.unstartable = False
        """True once the server failed to start twice in a row: its language has none."""
        self.started_at = 0.0
        self._starting: asyncio.Task[ServerProcess] | None = None
        self._loading: _Loading | None = None
        self._open: dict[Path, tuple[int, str]] = {}
        self._disk: dict[Path, None] = {}
        self._busy = 0
        self._idle: asyncio.TimerHandle | None = None
        self._stopping: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.stopped = asyncio.Event()
        """Set each time the server is shut down (idle or closed): tests wait on it."""

    @property
    def label(self) -> str:
        """The server's program name, for messages."""
        return Path(self.command[0]).name

    @property
    def running(self) -> bool:
        """True while a process is up."""
        return self.process is not None and self.process.alive

    async def request(self, method: str, params: Any, *, limit: float | None = None) -> Any:
        """Ask the server, starting it when needed; a crash is answered by one restart."""
        self._busy += 1
        self._cancel_idle()
        try:
            try:
                return await self._ask(method, params, limit)
            except ServerGone:
                if self.crashes >= 1:
                    raise
                self.crashes += 1
                try:
                    return await self._ask(method, params, limit)
                except ServerGone:
                    self.unstartable = not self.started_at
                    raise
        finally:
            self._busy -= 1
            self._arm_idle()

    async def _ask(self, method: str, params: Any, limit: float | None) -> Any:
        process = await self._ready()
        async with self._lock:
            self._sync(process, _document(params))
        answer = await process.request(method, params, limit or self.timeout)
        loading = self._loading
        if loading is not None and not loading.done.is_set():  # answered from part of it
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(loading.done.wait(), limit or self.timeout)
            answer = await process.request(method, params, limit or self.timeout)
        return answer

    def notify_changed(self, paths: Iterable[Path]) -> None:
        """Tell a running server that files changed on disk (a watcher or Karyi wrote them)."""
        changes = [
            {"uri": p.as_uri(), "type": 2 if p.exists() else 3}
            for p in paths
            if p.suffix.lower() in self.extensions
        ]
        if changes and self.running and self.process is not None:
            self.process.notify("workspace/didChangeWatchedFiles", {"changes": changes})

    async def _ready(self) -> ServerProcess:
        if self._stopping is not None:
            await asyncio.shield(self._stopping)
        if self.process is not None and self.process.alive:
            return self.process
        if self.process is not None and self._starting is None:
            await self.process.aclose()
            self.process = None
            self._open.clear()
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        try:
            # shielded: a call that times out leaves the start going for the next one
            return await asyncio.shield(self._starting)
        finally:
            if self._starting is not None and self._starting.done():
                self._starting = None

    async def _start(self) -> ServerProcess:
        from karyi.navigation.process import ServerProcess  # pygls loads with the first start

        process = ServerProcess(self.command, self.root)
        self.starts += 1
        begun = time.monotonic()
        listed = asyncio.Event()
        pattern = READY_MESSAGES.get(self.label)

        def on_log(params: Any) -> None:
            if pattern and re.search(pattern, str(getattr(params, "message", ""))):
                listed.set()

        loading = _Loading(LOADING_PROGRESS[self.label]) if self.label in LOADING_PROGRESS else None
        capabilities = dict(CLIENT_CAPABILITIES)
        handlers = {**HANDLERS, "window/logMessage": on_log}
        if loading is not None:
            capabilities["window"] = {"workDoneProgress": True}
            handlers["$/progress"] = loading.on_progress
        try:
            await process.start(capabilities, handlers, limit=self.timeout)
            if pattern:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(listed.wait(), self.timeout)
        except BaseException:
            await process.aclose()
            raise
        self.started_at = time.monotonic() - begun
        self.process, self._loading = process, loading
        self.stopped.clear()
        return process

    def _sync(self, process: ServerProcess, asked: Path | None) -> None:
        """Open, update or close documents so the server sees the unsaved buffers, and
        the file a request is about (some servers answer only for open documents: the
        last `DISK_DOCUMENTS` such files stay open, updated when the disk changes)."""
        texts = self.overlay.texts(self.extensions)
        if asked is not None and asked not in texts and self.label in OPENS_TO_ANSWER:
            self._disk.pop(asked, None)
            self._disk[asked] = None
            while len(self._disk) > DISK_DOCUMENTS:
                self._disk.pop(next(iter(self._disk)))
        for path in self._disk:
            if path not in texts:
                with contextlib.suppress(OSError, UnicodeDecodeError):
                    texts[path] = path.read_text(encoding="utf-8")
        for path in [p for p in self._open if p not in texts]:
            del self._open[path]
            process.notify("textDocument/didClose", {"textDocument": {"uri": path.as_uri()}})
        for path, text in texts.items():
            self._send(process, path, text)

    def _send(self, process: ServerProcess, path: Path, text: str) -> None:
        version, sent = self._open.get(path, (0, None))
        if sent == text:
            return
        uri = path.as_uri()
        if sent is None:
            item = {"uri": uri, "languageId": self.language, "version": 1, "text": text}
            process.notify("textDocument/didOpen", {"textDocument": item})
        else:
            change = {"textDocument": {"uri": uri, "version": version + 1}}
            process.notify("textDocument/didChange", {**change, "contentChanges": [{"text": text}]})
        self._open[path] = (version + 1, text)

    def _cancel_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def _arm_idle(self) -> None:
        if self._busy or not self.running:
            return
        self._cancel_idle()
        loop = asyncio.get_running_loop()
        self._idle = loop.call_later(self.idle_seconds, self._went_idle)

    def _went_idle(self) -> None:
        self._idle = None
        if not self._busy and self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop())

    async def _stop(self) -> None:
        try:
            process, self.process = self.process, None
            self._open.clear()
            self._disk.clear()
            self.crashes = 0  # the next start is a fresh one, not a restart after a crash
            if process is not None:
                await process.aclose()
        finally:
            self._stopping = None
            self.stopped.set()

    async def aclose(self) -> None:
        """Stop the server (and a start still under way)."""
        self._cancel_idle()
        starting, self._starting = self._starting, None
        if starting is not None:
            starting.cancel()
            with contextlib.suppress(BaseException):
                await starting
        await self._stop()
