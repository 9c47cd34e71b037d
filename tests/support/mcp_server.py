"""A real MCP server for the tests, written with the official SDK's MCPServer (FastMCP in
SDK 1.x): `python -m tests.support.mcp_server stdio|http|sse [--broken-schema]`.

Tools: `add(a, b)`, `echo(text)` (also says which process answered), `where(point)` (a
pydantic model: its schema has `$defs` and `$ref`), `image()` (a tiny PNG), `fail()` (an
error result), `crash()` (the process dies mid-call), `hang()` (never answers). With
`--broken-schema` one more tool, `broken`, lists an input schema that is not JSON Schema.

Over http and sse it binds 127.0.0.1 on a free port and prints `PORT <n>` on stdout
before serving, so a test waits for that line instead of guessing when it is up.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Image
from pydantic import BaseModel

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


class Point(BaseModel):
    """A point on the plane."""

    x: int
    y: int


class TestServer(MCPServer):
    """MCPServer with an optional broken schema in its tool list."""

    broken = False

    async def list_tools(self) -> list[Any]:
        tools = await super().list_tools()
        if self.broken:
            for tool in tools:
                if tool.name == "broken":
                    tool.input_schema = {
                        "type": "object",
                        "properties": {"x": {"type": "no-such-type"}},
                    }
        return tools


app = TestServer("karyi-test")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def echo(text: str) -> str:
    """Say the text back, with the server's process id."""
    return f"{text} (pid {os.getpid()})"


@app.tool()
def where(point: Point) -> str:
    """Say which quadrant a point is in."""
    return (
        f"({point.x}, {point.y}) is in quadrant {1 if point.x >= 0 and point.y >= 0 else 'other'}"
    )


@app.tool()
def image() -> Image:
    """A 1x1 PNG."""
    return Image(data=PNG, format="png")


@app.tool()
def fail() -> str:
    """Always fails."""
    raise ValueError("this tool always fails")


@app.tool()
def crash() -> str:
    """The server process dies while answering."""
    os._exit(3)


@app.tool()
async def hang() -> str:
    """Never answers."""
    await asyncio.Event().wait()
    return "never"


def _broken(x: int) -> str:
    return str(x)


def serve_http(kind: str) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    starlette = app.streamable_http_app() if kind == "http" else app.sse_app()

    class Announcing(uvicorn.Server):
        """Says its port only once it listens and the app's lifespan has started: a
        client told earlier (after `bind`) is refused on a loaded machine."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            print(f"PORT {port}", flush=True)

    server = Announcing(uvicorn.Config(starlette, log_level="warning", lifespan="on"))
    server.run(sockets=[sock])


def main() -> None:
    kind = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if "--broken-schema" in sys.argv:
        app.broken = True
        app.add_tool(_broken, name="broken", description="A tool whose schema is broken.")
    if kind == "stdio":
        app.run()
    else:
        serve_http(kind)


if __name__ == "__main__":
    main()
