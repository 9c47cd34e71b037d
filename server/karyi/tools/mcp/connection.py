"""One MCP server's connection: started on demand, watched, restarted after a failure.

The SDK's `Client` is an async context manager whose task group must be entered and
left by the same task, while tool calls come from many tasks. So each connection lives
in a task of its own (`_serve`): it enters the client, lists the tools, says it is ready
and waits until it is told to stop; calls use the client from their own tasks.

A server that dies is noticed by the call that was waiting for it ("Connection closed")
or by its task ending; either way the connection is marked `disconnected` with the
reason, and the next call starts the server again (`connect` is lazy and idempotent).
A server that does not start and list its tools within `connectTimeout` is `failed`.
The stderr of a stdio server goes to a log file whose last lines explain a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TextIO

import httpx2
import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from karyi.tools.mcp.config import ServerConfig
from karyi.tools.mcp.status import ServerStatus

STOP_GRACE = 5.0
LIST_PAGES = 50


class McpUnavailable(Exception):
    """The server cannot be reached now; the message says why."""


def describe(exc: BaseException) -> str:
    """The innermost useful message of an exception (task groups wrap them in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return exc.message
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"HTTP {exc.response.status_code} from {exc.request.url}"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ServerConnection:
    """See the module docstring."""

    def __init__(self, config: ServerConfig, log_dir: Path | None, root: Path) -> None:
        self.config = config
        self.log_dir = log_dir
        self.root = root
        self.state = "idle"
        self.error = ""
        self.tools: list[mcp_types.Tool] = []
        self.starts = 0
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()
        self._log: TextIO | None = None

    @property
    def log_path(self) -> Path | None:
        """Where a stdio server's stderr goes."""
        if self.log_dir is None or self.config.transport != "stdio":
            return None
        return self.log_dir / f"{self.config.name}.log"

    def status(self) -> ServerStatus:
        """The current state."""
        c = self.config
        return ServerStatus(
            c.name,
            self.state,
            c.transport,
            c.where(),
            [t.name for t in self.tools],
            self.error,
            self.starts,
        )

    @property
    def alive(self) -> bool:
        """Connected and its task still running."""
        return self.state == "connected" and self._task is not None and not self._task.done()

    async def connect(self) -> None:
        """Start the server and list its tools, unless it is running (McpUnavailable)."""
        async with self._lock:
            if self.alive:
                return
            await self._shutdown()
            self.state, self.error = "connecting", ""
            self.starts += 1
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._stop = asyncio.Event()
            self._task = asyncio.create_task(self._serve(ready), name=f"mcp:{self.config.name}")
            try:
                async with asyncio.timeout(self.config.connect_timeout):
                    await asyncio.shield(ready)
            except TimeoutError:
                await self._shutdown()
                self._failed(
                    f"did not start and list its tools within {self.config.connect_timeout:g}s "
                    "(connectTimeout)"
                )
            except Exception as exc:
                await self._shutdown()
                self._failed(describe(exc))

    def _failed(self, reason: str) -> None:
        tail = self._stderr_tail()
        self.state, self.error = "failed", reason + (f"; its stderr ends: {tail}" if tail else "")
        raise McpUnavailable(f"MCP server {self.config.name!r} {self.error}")

    def _stderr_tail(self) -> str:
        path = self.log_path
        if path is None:
            return ""
        try:
            lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
        except OSError:
            return ""
        return " | ".join(lines[-3:])[-400:]

    async def _serve(self, ready: asyncio.Future[None]) -> None:
        try:
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(Client(self._transport(stack)))
                self.tools = await _list_tools(client)
                self._client = client
                self.state = "connected"
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(
                    exc if isinstance(exc, Exception) else McpUnavailable("stopped")
                )
            elif self.state == "connected" and not self._stop.is_set():
                self.state, self.error = "disconnected", describe(exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            self._client = None
            if self.state == "connected" and not self._stop.is_set():
                self.state, self.error = "disconnected", "the connection ended"
            self._close_log()

    def _transport(self, stack: AsyncExitStack) -> Any:
        c = self.config
        if c.transport == "stdio":
            path = self.log_path
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._log = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed in _serve)
            params = StdioServerParameters(
                command=c.command, args=list(c.args), env=c.env or None, cwd=c.cwd or self.root
            )
            from mcp.client.stdio import stdio_client

            return stdio_client(params, errlog=self._log) if self._log else stdio_client(params)
        if c.transport == "sse":
            return sse_client(c.url, headers=c.headers or None)
        http = httpx2.AsyncClient(headers=c.headers, timeout=httpx2.Timeout(30.0, read=300.0))
        stack.push_async_callback(http.aclose)
        return streamable_http_client(c.url, http_client=http)

    def _close_log(self) -> None:
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None

    async def call(self, tool: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        """Call `tool`, starting the server first if needed (McpUnavailable, TimeoutError)."""
        await self.connect()
        client = self._client
        if client is None:
            raise McpUnavailable(f"MCP server {self.config.name!r} is not connected")
        try:
            return await client.call_tool(tool, arguments, read_timeout_seconds=self.config.timeout)
        except MCPError as exc:
            if exc.code == mcp_types.REQUEST_TIMEOUT:
                raise TimeoutError(
                    f"MCP server {self.config.name!r} did not answer {tool} within "
                    f"{self.config.timeout:g}s (timeout)"
                ) from None
            if exc.code == mcp_types.CONNECTION_CLOSED or not self.alive:
                await self._lost(f"the connection closed during {tool}")
            raise

    async def _lost(self, why: str) -> None:
        tail = self._stderr_tail()
        self.state, self.error = (
            "disconnected",
            why + (f"; its stderr ends: {tail}" if tail else ""),
        )
        await self._shutdown()
        raise McpUnavailable(
            f"MCP server {self.config.name!r}: {self.error}. The server will be started again "
            "on the next call."
        )

    async def _shutdown(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        self._stop.set()
        # A connection still starting does not watch the stop event: cancel it at once.
        grace = STOP_GRACE if self._client is not None else 0
        done, _ = await asyncio.wait({task}, timeout=grace) if grace else (set(), set())
        if not done:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self._close_log()

    async def close(self) -> None:
        """Stop the server (its process ends) and forget its tools' connection."""
        async with self._lock:
            was = self.state
            await self._shutdown()
            if was in ("connected", "connecting"):
                self.state = "idle"


async def _list_tools(client: Client) -> list[mcp_types.Tool]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(LIST_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            break
    return tools
