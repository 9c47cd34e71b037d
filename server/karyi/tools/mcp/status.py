"""What the status lists show of an MCP server (`karyi/tools`, `karyi mcp`, the VS Code
tools view), apart from the connection: a front end's wire types name it without
importing the MCP SDK (docs/architecture.md#the-front-ends)."""

from __future__ import annotations

from dataclasses import dataclass, field

SERVER_STATES = "'idle' | 'connecting' | 'connected' | 'disconnected' | 'failed' | 'invalid'"
"""`ServerStatus.state` in the extension's types (protocol.gen.ts)."""


@dataclass(frozen=True)
class ServerStatus:
    """A server's state for status lists: `idle`, `connecting`, `connected`,
    `disconnected`, `failed`."""

    name: str
    state: str = field(metadata={"typescript": SERVER_STATES})
    transport: str
    where: str
    tools: list[str]
    error: str = ""
    starts: int = 0
