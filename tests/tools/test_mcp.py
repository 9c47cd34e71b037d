"""MCP servers through the official SDK: a real server (tests/support/mcp_server.py, the
SDK's MCPServer, formerly FastMCP) over stdio and over streamable HTTP."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from karyi.agent.runtime import Runtime
from karyi.core.results import Permission
from karyi.settings import Settings
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext
from karyi.tools.mcp.config import ConfigError, parse_server
from karyi.tools.mcp.manager import McpManager
from karyi.tools.mcp.naming import tool_name
from karyi.workspace.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]


def stdio(*extra: str, **options: Any) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_server", "stdio", *extra],
        "cwd": str(REPO),
        "timeout": 30000,  # generous: the suite runs under load on two cores
        **options,
    }


@pytest.fixture
def http_server() -> Iterator[str]:
    """The test server over streamable HTTP; yields its URL."""
    yield from _serve("http", "/mcp")


@pytest.fixture
def sse_server() -> Iterator[str]:
    """The test server over SSE; yields its URL."""
    yield from _serve("sse", "/sse")


def _serve(kind: str, path: str) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.mcp_server", kind],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # blocks until the server is listening
    assert line.startswith("PORT "), line
    try:
        yield f"http://127.0.0.1:{line.split()[1]}{path}"
    finally:
        proc.kill()
        proc.wait()


@pytest_asyncio.fixture
async def managers(ws_root: Path) -> AsyncIterator[list[McpManager]]:
    made: list[McpManager] = []
    yield made
    for manager in made:
        await manager.close()


async def started(made: list[McpManager], root: Path, servers: dict[str, Any]) -> McpManager:
    manager = McpManager(servers, root=root, lookup=lambda _n: None, log_dir=root / "logs")
    made.append(manager)
    await manager.start()
    return manager


def by_name(manager: McpManager) -> dict[str, Tool]:
    return {t.name: t for t in manager.tools()}


def ctx(root: Path) -> ToolContext:
    return ToolContext(Workspace.open(root), Settings())


async def test_stdio_server_tools_are_named_checked_and_called(
    managers: list[McpManager], ws_root: Path
) -> None:
    manager = await started(managers, ws_root, {"calc": stdio("--broken-schema")})
    tools = by_name(manager)
    assert sorted(tools) == [
        "calc__add",
        "calc__crash",
        "calc__echo",
        "calc__fail",
        "calc__hang",
        "calc__image",
        "calc__where",
    ]
    assert manager.warnings == [
        "MCP server 'calc': skipped tool 'broken': not valid JSON Schema at "
        "properties/x/type: 'no-such-type' is not valid under any of the given schemas"
    ]
    add = tools["calc__add"]
    assert add.permission is Permission.CONFIRM and add.description == "Add two integers."
    result = await add.run({"a": 2, "b": 3}, ctx(ws_root))
    assert result.success and result.llm_content == "5"
    assert add.validate({"a": 1}) == "missing required parameter 'b' (integer)"


async def test_refs_in_schemas_are_resolved(managers: list[McpManager], ws_root: Path) -> None:
    manager = await started(managers, ws_root, {"calc": stdio()})
    where = by_name(manager)["calc__where"]
    point = where.parameters["properties"]["point"]
    assert "$ref" not in str(where.parameters) and "$defs" not in where.parameters
    assert point["type"] == "object" and set(point["properties"]) == {"x", "y"}
    result = await where.run({"point": {"x": 1, "y": 2}}, ctx(ws_root))
    assert result.llm_content == "(1, 2) is in quadrant 1"
    assert where.validate({"point": {"x": "a", "y": 2}}) == (
        "point.x: expected integer, got string 'a'"
    )


async def test_images_and_errors_are_mapped(managers: list[McpManager], ws_root: Path) -> None:
    manager = await started(managers, ws_root, {"calc": stdio()})
    tools = by_name(manager)
    image = await tools["calc__image"].run({}, ctx(ws_root))
    assert image.success
    assert image.llm_content == "[image: image/png, 70 B; shown to the user, not to you]"
    block = image.data["content"][0]
    assert block["type"] == "image" and block["mimeType"] == "image/png" and block["data"]
    failed = await tools["calc__fail"].run({}, ctx(ws_root))
    assert failed.error is not None and failed.error.code == "tool_error"
    assert failed.error.message.startswith("calc__fail: the server reported an error:")


async def test_a_tool_that_never_answers_times_out(
    managers: list[McpManager], ws_root: Path
) -> None:
    manager = await started(managers, ws_root, {"calc": stdio(timeout=500)})
    tools = by_name(manager)
    result = await tools["calc__hang"].run({}, ctx(ws_root))
    assert result.error is not None and result.error.code == "timeout"
    assert result.error.message == "MCP server 'calc' did not answer hang within 0.5s (timeout)"
    again = await tools["calc__add"].run({"a": 1, "b": 1}, ctx(ws_root))
    assert again.success and again.llm_content == "2"


async def test_a_crash_mid_call_is_reported_and_the_server_restarts(
    managers: list[McpManager], ws_root: Path
) -> None:
    manager = await started(managers, ws_root, {"calc": stdio()})
    tools = by_name(manager)
    first = await tools["calc__echo"].run({"text": "hi"}, ctx(ws_root))
    crashed = await tools["calc__crash"].run({}, ctx(ws_root))
    assert crashed.error is not None and crashed.error.code == "tool_error"
    assert crashed.error.message.startswith("MCP server 'calc': the connection closed during crash")
    assert crashed.error.message.endswith("The server will be started again on the next call.")
    assert manager.status()[0].state == "disconnected"
    second = await tools["calc__echo"].run({"text": "hi"}, ctx(ws_root))
    assert second.success and second.llm_content != first.llm_content  # another process
    status = manager.status()[0]
    assert (status.state, status.starts) == ("connected", 2)


async def test_streamable_http_server(
    managers: list[McpManager], ws_root: Path, http_server: str
) -> None:
    manager = await started(managers, ws_root, {"web": {"url": http_server, "timeout": 60000}})
    tools = by_name(manager)
    assert "web__add" in tools and "web__broken" not in tools
    result = await tools["web__add"].run({"a": 20, "b": 22}, ctx(ws_root))
    assert result.success and result.llm_content == "42"
    status = manager.status()[0]
    assert (status.state, status.transport, status.where) == (
        "connected",
        "http",
        f"{http_server} (http)",
    )


async def test_sse_server(managers: list[McpManager], ws_root: Path, sse_server: str) -> None:
    manager = await started(managers, ws_root, {"old": {"url": sse_server, "type": "sse"}})
    result = await by_name(manager)["old__add"].run({"a": 1, "b": 2}, ctx(ws_root))
    assert result.success and result.llm_content == "3"


async def test_http_server_crash_mid_call(
    managers: list[McpManager], ws_root: Path, http_server: str
) -> None:
    manager = await started(
        managers,
        ws_root,
        {"web": {"url": http_server, "timeout": 30000, "connectTimeout": 30000}, "calc": stdio()},
    )
    tools = by_name(manager)
    crashed = await tools["web__crash"].run({}, ctx(ws_root))
    assert crashed.error is not None and crashed.error.code == "tool_error"
    assert "MCP server 'web'" in crashed.error.message
    gone = await tools["web__add"].run({"a": 1, "b": 2}, ctx(ws_root))
    assert gone.error is not None and "MCP server 'web'" in gone.error.message
    other = await tools["calc__add"].run({"a": 1, "b": 2}, ctx(ws_root))
    assert other.success  # the other server is unaffected


async def test_servers_that_fail_to_start_are_reported_alone(
    managers: list[McpManager], ws_root: Path
) -> None:
    servers = {
        "calc": stdio(),
        "silent": {
            "command": sys.executable,
            "args": ["-c", "import time; time.sleep(60)"],
            "connectTimeout": 500,
        },
        "missing": {"command": "/no/such/server"},
        "broken": {"url": 42},
        "off": {"command": "x", "disabled": True},
    }
    manager = await started(managers, ws_root, servers)
    assert [t.name for t in manager.tools()][:1] == ["calc__add"]
    states = {s.name: (s.state, s.error) for s in manager.status()}
    assert states["calc"][0] == "connected"
    assert states["silent"] == (
        "failed",
        "did not start and list its tools within 0.5s (connectTimeout)",
    )
    assert states["missing"][0] == "failed" and "/no/such/server" in states["missing"][1]
    assert states["broken"] == ("invalid", "mcpServers.broken: url: expected a string")
    assert "off" not in states
    assert "MCP server 'silent' did not start" in " ".join(manager.warnings)


async def test_include_exclude_and_trust(managers: list[McpManager], ws_root: Path) -> None:
    servers = {
        "a": stdio(includeTools=["add", "echo"], trust=True),
        "b": stdio(excludeTools=["crash", "hang"]),
    }
    manager = await started(managers, ws_root, servers)
    names = [t.name for t in manager.tools()]
    assert names[:2] == ["a__add", "a__echo"]
    assert "b__crash" not in names and "b__add" in names
    tools = by_name(manager)
    assert tools["a__add"].permission is Permission.AUTO
    assert tools["b__add"].permission is Permission.CONFIRM


async def test_the_runtime_owns_the_servers(ws_root: Path) -> None:
    settings = Settings().with_values(mcpServers={"calc": stdio()})
    runtime = Runtime.open(ws_root, settings)
    tools, warnings = await runtime.extra_tools()
    assert "calc__add" in [t.name for t in tools] and warnings == []
    assert "calc__add" in runtime.registry.profile("mcp")
    echo = runtime.registry.find("mcp.calc__echo")
    pid = int((await echo.run({"text": "x"}, ctx(ws_root))).llm_content.split("pid ")[1][:-1])
    await runtime.aclose()
    assert not Path(f"/proc/{pid}").exists() or _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_names_are_sanitised_and_capped() -> None:
    assert tool_name("my server", "do.thing") == "my_server__do_thing"
    long = tool_name("s" * 40, "t" * 40)
    assert len(long) == 64 and long.startswith("s" * 40 + "__" + "t" * 13 + "_")
    assert tool_name("s" * 40, "t" * 40) != tool_name("s" * 40, "t" * 39 + "u")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({}, "expected command (a stdio server) or url (an http or sse server)"),
        ({"command": "x", "url": "http://y"}, "give either command (stdio) or url"),
        ({"command": "x", "args": "a b"}, "args: expected an array of strings"),
        ({"type": "ws", "url": "ws://x"}, "type: expected one of 'stdio', 'http', 'sse'"),
        ({"command": "x", "timeout": -1}, "timeout: expected a positive number of milliseconds"),
        ({"command": "x", "env": {"T": "$KARYI{NOPE}"}}, "env: secure variable NOPE is not set"),
        ({"url": "http://x/${NOPE_VAR}"}, "url: ${NOPE_VAR} is not set in the environment"),
    ],
)
def test_bad_server_entries(entry: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_server("s", entry, root=Path("/"), lookup=lambda _n: None, env={})


def test_variables_in_entries() -> None:
    config = parse_server(
        "s",
        {"url": "https://h/${env:HOST_PART}", "headers": {"Authorization": "Bearer $KARYI{TOK}"}},
        root=Path("/"),
        lookup={"TOK": "t0k"}.get,
        env={"HOST_PART": "mcp"},
    )
    assert config is not None and config.url == "https://h/mcp"
    assert config.headers == {"Authorization": "Bearer t0k"} and config.transport == "http"
