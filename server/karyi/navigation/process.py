"""One language server process spoken to over stdio with pygls' JSON-RPC client: the one
client of every language server Karyi starts, for code navigation (`server.py`) and for
the problems after an edit (`agent/diagnostics/lsp_clients.py`).

What every Karyi-started language server shares: finding its program, starting it in its
own process group, the `initialize` handshake, requests that each have a timeout and
fail (not hang) when the process dies, and a polite then forced shutdown. Results come
back as plain JSON (dicts and lists): Karyi reads the few fields it needs itself, and a
server's capabilities that lsprotocol cannot convert never stop the reader
(docs/context.md#where-navigation-answers-come-from).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcException
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient
from pygls.protocol import JsonRPCResponseMessage, LanguageServerProtocol

from karyi.core.plain_json import plain
from karyi.navigation.errors import ServerError, ServerGone
from karyi.navigation.programs import find_program

STOP_SECONDS = 2.0


class _RawResults(LanguageServerProtocol):
    """Messages as plain JSON, whatever the method (see the module's docstring)."""

    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        return None

    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        return None  # Karyi's requests and notifications are plain JSON too

    def structure_message(self, data: dict[str, Any]) -> Any:
        """An answer's result kept as the JSON it is: pygls would make namedtuples of
        it, which lose keys that are not identifiers (a `WorkspaceEdit`'s URIs)."""
        if "jsonrpc" in data and "id" in data and "result" in data and "method" not in data:
            return JsonRPCResponseMessage(
                id=data["id"], jsonrpc=data["jsonrpc"], result=data["result"]
            )
        return super().structure_message(data)


Handler = Callable[[Any], Any]


def _plain_function(handler: Handler) -> Handler:
    """`handler` as a function of its own: pygls marks what it registers, which a bound
    method cannot carry."""

    def handle(params: Any) -> Any:
        return handler(params)

    return handle


class ServerProcess:
    """A started language server: `request` and `notify` until `aclose`."""

    def __init__(
        self,
        command: Sequence[str],
        root: Path,
        on_exit: Callable[[ServerGone], None] | None = None,
    ) -> None:
        self.command = list(command)
        self.root = root
        self.label = Path(self.command[0]).name
        self.on_exit = on_exit
        """Called once the process has exited (with what its requests fail with)."""
        self.capabilities: dict[str, Any] = {}
        self.initialized = False
        self.pid: int | None = None
        self._client: LanguageClient | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._gone: ServerGone | None = None

    @property
    def alive(self) -> bool:
        """True while the process runs and has not been closed."""
        return self._process is not None and self._process.returncode is None and not self._gone

    async def start(
        self,
        capabilities: Mapping[str, Any],
        handlers: Mapping[str, Handler],
        *,
        limit: float,
        options: Any = None,
    ) -> None:
        """Start the process and finish the `initialize` handshake (within `limit` seconds)."""
        program = find_program(self.command[0])
        if program is None:
            raise ServerGone(f"{self.command[0]!r} was not found on PATH")
        client = LanguageClient("karyi", "1", protocol_cls=_RawResults)
        for method, handler in handlers.items():
            client.feature(method)(_plain_function(handler))
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
        self._client, self._process, self.pid = client, process, process.pid
        client.protocol.set_writer(process.stdin)
        reader = run_async(
            stop_event=client._stop_event, reader=process.stdout, protocol=client.protocol
        )
        client._async_tasks.append(asyncio.ensure_future(reader))
        client._async_tasks.append(asyncio.ensure_future(self._watch_exit(process, client)))
        params = {
            "processId": os.getpid(),
            "rootUri": self.root.as_uri(),
            "rootPath": str(self.root),
            "workspaceFolders": [{"uri": self.root.as_uri(), "name": self.root.name}],
            "capabilities": dict(capabilities),
            "initializationOptions": options,
        }
        result = await self.request("initialize", params, limit)
        self.capabilities = dict((result or {}).get("capabilities") or {})
        self.initialized = True
        self.notify("initialized", {})

    async def request(self, method: str, params: Any, limit: float) -> Any:
        """The server's answer to `method`, as plain JSON; `TimeoutError` after `limit`
        seconds (the request is cancelled), `ServerGone` when the process is not there."""
        client = self._live()
        future = client.protocol.send_request_async(method, params)
        try:
            return plain(await asyncio.wait_for(future, limit))
        except JsonRpcException as exc:
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise ServerError(f"{self.label} answered {method} with an error: {first}") from None
        except TimeoutError:
            raise TimeoutError(f"{self.label} did not answer {method} in {limit:g} s") from None

    def notify(self, method: str, params: Any) -> None:
        """Send a notification (nothing happens when the process is gone)."""
        if self.alive and self._client is not None:
            self._client.protocol.notify(method, params)

    def _live(self) -> LanguageClient:
        if self._gone is not None:
            raise self._gone
        if self._client is None or not self.alive:
            raise ServerGone(f"{self.label} is not running")
        return self._client

    async def _watch_exit(
        self, process: asyncio.subprocess.Process, client: LanguageClient
    ) -> None:
        await process.wait()
        self._gone = self._gone or ServerGone(f"{self.label} exited with code {process.returncode}")
        for future in list(client.protocol._request_futures.values()):
            if not future.done():
                future.set_exception(self._gone)
        client._stop_event.set()
        if self.on_exit is not None:
            self.on_exit(self._gone)

    async def aclose(self) -> None:
        """Shut the server down: `shutdown` and `exit`, then the process group by force (at
        once when it never answered `initialize`)."""
        client, process = self._client, self._process
        if process is not None and process.returncode is None and client is not None:
            if self.initialized:
                with contextlib.suppress(Exception):
                    await self.request("shutdown", None, STOP_SECONDS)
                    self.notify("exit", None)
            try:
                await asyncio.wait_for(process.wait(), STOP_SECONDS if self.initialized else 0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, 9)
                await process.wait()
        self._gone = self._gone or ServerGone(f"{self.label} was shut down")
        if client is not None:
            client._stop_event.set()
            for task in client._async_tasks:
                task.cancel()
            await asyncio.gather(*client._async_tasks, return_exceptions=True)
