"""An MCP server's tool as a Karyi tool: `server__tool`, run through its connection."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import mcp_types
from mcp.shared.exceptions import MCPError

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import Permission, ToolResult
from karyi.tools.base import Confirmation, Tool
from karyi.tools.context import ToolContext
from karyi.tools.mcp.connection import McpUnavailable, ServerConnection, describe
from karyi.tools.mcp.naming import tool_name
from karyi.tools.mcp.results import to_result
from karyi.tools.mcp.schema import prepare


class McpTool(Tool):
    """One tool of one server (made per tool by `make_tool`)."""

    name = "mcp"
    description = "An MCP tool."
    parameters = {"type": "object", "properties": {}}
    permission = Permission.CONFIRM
    runs_programs = True
    server: ServerConnection
    remote = ""

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        args = json.dumps(dict(params), ensure_ascii=False)
        return f"{self.remote} on MCP server {self.server.config.name}: {args[:120]}"

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Confirmation | None:
        """The server, the tool and the arguments."""
        return Confirmation(
            kind="mcp",
            title=f"Run {self.remote} on MCP server {self.server.config.name}",
            details=json.dumps(dict(params), ensure_ascii=False, indent=2),
        )

    def approval_key(self, params: Mapping[str, Any]) -> str:
        """ "Allow always" is per MCP tool."""
        return self.name

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """Calls to one server may run in parallel."""
        return frozenset()

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Call the tool on its server."""
        try:
            result = await self.server.call(self.remote, dict(params))
        except McpUnavailable as exc:
            raise ToolFailure(ErrorCode.TOOL_ERROR, str(exc)) from None
        except TimeoutError as exc:
            raise ToolFailure(ErrorCode.TIMEOUT, str(exc)) from None
        except MCPError as exc:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR,
                f"MCP server {self.server.config.name!r} refused {self.remote}: {exc.message}",
            ) from None
        except Exception as exc:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR,
                f"MCP server {self.server.config.name!r}, {self.remote}: {describe(exc)}",
            ) from None
        return to_result(self.name, result)


def make_tool(server: ServerConnection, listed: mcp_types.Tool, name: str | None = None) -> Tool:
    """A Karyi tool for `listed` (raises SchemaProblem when its schema is unusable)."""
    schema = prepare(listed.input_schema)
    config = server.config
    title = listed.title or (listed.annotations.title if listed.annotations else None)
    description = (listed.description or title or listed.name).strip()
    attrs = {
        "name": name or tool_name(config.name, listed.name),
        "display_name": f"{title or listed.name} ({config.name} MCP)",
        "description": description,
        "parameters": schema,
        "permission": Permission.AUTO if config.trust else Permission.CONFIRM,
        "server": server,
        "remote": listed.name,
    }
    cls = type(f"Mcp_{attrs['name']}", (McpTool,), attrs)
    tool: Tool = cls()
    return tool
