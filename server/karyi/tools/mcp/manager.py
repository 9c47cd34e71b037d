"""Every MCP server of the settings, their tools, their status (owned by the Runtime).

`start()` connects every server at once (each within its own `connectTimeout`) and
makes their tools; a server that fails is reported in `warnings` and `status()` and
left out, the others are unaffected; so is a tool whose schema is unusable. Tools of a
server that dies stay registered: a call to one restarts the server (see
`connection`). `restart(name)` starts a server again and refreshes its tools; `close()`
stops them all (no server process outlives the runtime).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from karyi.tools.base import Tool
from karyi.tools.mcp.config import ConfigError, ServerConfig, parse_server
from karyi.tools.mcp.connection import McpUnavailable, ServerConnection
from karyi.tools.mcp.schema import SchemaProblem
from karyi.tools.mcp.status import ServerStatus
from karyi.tools.mcp.tool import make_tool


class McpManager:
    """See the module docstring."""

    def __init__(
        self,
        servers: Mapping[str, Any],
        *,
        root: Path,
        lookup: Callable[[str], str | None],
        log_dir: Path | None = None,
        env: Mapping[str, str] | None = None,
        refusal: Callable[[str, Any], str | None] | None = None,
    ) -> None:
        """`refusal(name, entry)`: why a server may not start (`Settings.mcp_refusal`,
        the organisation's allowlist); a refused one is listed as `invalid` with it."""
        self.root = root
        self.warnings: list[str] = []
        self._tools: dict[str, list[Tool]] = {}
        self._connections: dict[str, ServerConnection] = {}
        self._invalid: dict[str, str] = {}
        for name, entry in servers.items():
            if refusal is not None and (why := refusal(name, entry)) is not None:
                self._invalid[name] = f"mcpServers.{name}: {why}"
                self.warnings.append(self._invalid[name])
                continue
            try:
                config = parse_server(name, entry, root=root, lookup=lookup, env=env)
            except ConfigError as exc:
                self._invalid[name] = f"mcpServers.{name}: {exc}"
                self.warnings.append(self._invalid[name])
                continue
            if config is None:
                continue
            if config.ignored:
                self.warnings.append(
                    f"mcpServers.{name}: ignored unknown key(s) {', '.join(config.ignored)}"
                )
            self._connections[name] = ServerConnection(config, log_dir, root)
        self._started = False

    @property
    def configs(self) -> list[ServerConfig]:
        """The usable server entries."""
        return [c.config for c in self._connections.values()]

    async def start(self) -> None:
        """Connect every server not yet started (in parallel) and make their tools."""
        if self._started:
            return
        self._started = True
        await asyncio.gather(*(self._load(name) for name in self._connections))

    async def _load(self, name: str) -> None:
        conn = self._connections[name]
        try:
            await conn.connect()
        except McpUnavailable as exc:
            self.warnings.append(str(exc))
            self._tools[name] = []
            return
        self._tools[name] = self._make_tools(conn)

    def _make_tools(self, conn: ServerConnection) -> list[Tool]:
        made: list[Tool] = []
        taken = {
            t.name for name, tools in self._tools.items() if name != conn.config.name for t in tools
        }
        for listed in conn.tools:
            if not conn.config.wants(listed.name):
                continue
            try:
                tool = make_tool(conn, listed)
            except SchemaProblem as exc:
                self.warnings.append(
                    f"MCP server {conn.config.name!r}: skipped tool {listed.name!r}: {exc}"
                )
                continue
            if tool.name in taken:
                tool = make_tool(conn, listed, name=_unique(tool.name, taken))
            taken.add(tool.name)
            made.append(tool)
        return made

    def tools(self) -> list[Tool]:
        """Every tool of every started server, server by server."""
        return [t for name in self._connections for t in self._tools.get(name, [])]

    def status(self) -> list[ServerStatus]:
        """Every configured server's state (invalid entries included, as `invalid`)."""
        out = [c.status() for c in self._connections.values()]
        out += [ServerStatus(n, "invalid", "", "", [], why) for n, why in self._invalid.items()]
        return out

    async def restart(self, name: str) -> ServerStatus:
        """Start server `name` again and refresh its tools (KeyError for an unknown name)."""
        conn = self._connections[name]
        await conn.close()
        await self._load(name)
        return conn.status()

    async def close(self) -> None:
        """Stop every server."""
        await asyncio.gather(*(c.close() for c in self._connections.values()))


def _unique(name: str, taken: set[str]) -> str:
    n = 2
    while f"{name[:60]}_{n}" in taken:
        n += 1
    return f"{name[:60]}_{n}"
