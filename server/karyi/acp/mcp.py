"""The MCP servers a client names in `session/new` and `session/load`, in the settings'
`mcpServers` form (tools/mcp/config.py), so the session's runtime starts them like any
configured server. The client is the editor the user set up: its servers are trusted as
the editor's settings are, never as a repository's.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from acp.schema import AcpMcpServer, HttpMcpServer, McpServerStdio, SseMcpServer

log = logging.getLogger(__name__)

ClientServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


def settings_entries(servers: Sequence[ClientServer]) -> dict[str, dict[str, Any]]:
    """`{name: entry}` for settings `mcpServers`; servers over ACP itself are skipped
    (not offered in the capabilities)."""
    entries: dict[str, dict[str, Any]] = {}
    for server in servers:
        if isinstance(server, McpServerStdio):
            entries[server.name] = {
                "command": server.command,
                "args": list(server.args),
                "env": {e.name: e.value for e in server.env},
            }
        elif isinstance(server, HttpMcpServer | SseMcpServer):
            entries[server.name] = {
                "type": "http" if isinstance(server, HttpMcpServer) else "sse",
                "url": server.url,
                "headers": {h.name: h.value for h in server.headers},
            }
        else:
            log.warning("MCP server %s over ACP is not supported; skipped", server.name)
    return entries
