"""`karyi/tools` and `karyi/restartMcpServer`: what the agent can call, as an editor asks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from karyi.agent.frontend.plugins import add_plugin
from tests.lsp.conftest import Start, request
from tests.support.plugin_folders import write_plugin
from tests.support.skill_folders import write_skill

REPO = Path(__file__).resolve().parents[2]
SERVERS = {
    "calc": {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_server", "stdio"],
        "cwd": str(REPO),
        "includeTools": ["add"],
    },
    "broken": {"command": "/no/such/server"},
    "bad": {"command": 5},
}


async def test_tools_lists_each_tool_by_source_and_each_server_by_state(lsp: Start) -> None:
    client = await lsp(settings={"mcpServers": SERVERS})
    info: Any = await request(client, "karyi/tools", {})
    sources = {t.name: t.source for t in info.tools}
    assert sources["calc__add"] == "mcp" and sources["read"] == "builtin"
    servers = {s.name: s for s in info.servers}
    assert servers["calc"].state == "connected" and "add" in servers["calc"].tools
    assert "calc__echo" not in sources  # the server lists it; includeTools leaves it out
    assert servers["broken"].state == "failed" and "/no/such/server" in servers["broken"].error
    assert any("broken" in w for w in info.warnings)

    again: Any = await request(client, "karyi/restartMcpServer", {"name": "calc"})
    assert (again.name, again.state, again.starts) == ("calc", "connected", 2)
    with pytest.raises(
        JsonRpcException,
        match=r"no MCP server 'nope' in the settings \(servers: calc, broken, bad\)",
    ):
        await request(client, "karyi/restartMcpServer", {"name": "nope"})
    with pytest.raises(JsonRpcException, match=r"cannot start 'bad': mcpServers.bad: command"):
        await request(client, "karyi/restartMcpServer", {"name": "bad"})
    with pytest.raises(JsonRpcException, match="name"):
        await request(client, "karyi/restartMcpServer", {})


async def test_without_servers_only_the_builtin_tools(lsp: Start) -> None:
    client = await lsp()
    info: Any = await request(client, "karyi/tools", {})
    assert info.servers == [] and {t.source for t in info.tools} == {"builtin"}


async def test_tools_lists_the_skills_and_the_plugins(
    lsp: Start, ws_root: Path, tmp_path: Path
) -> None:
    write_skill(ws_root / ".claude" / "skills", "lint", "run the linters")
    (ws_root / ".agents" / "skills" / "bad").mkdir(parents=True)
    (ws_root / ".agents" / "skills" / "bad" / "SKILL.md").write_text("no front matter\n")
    add_plugin(str(write_plugin(tmp_path / "src")), "workspace", ws_root)
    client = await lsp()
    info: Any = await request(client, "karyi/tools", {})
    assert {(s.name, s.scope) for s in info.skills} == {
        ("lint", "workspace"),
        ("french", "plugin demo"),
    }
    ((name, scope, enabled),) = [(p.name, p.scope, p.enabled) for p in info.plugins]
    assert (name, scope, enabled) == ("demo", "workspace", True)
    assert any("bad/SKILL.md: skipped: no front matter" in w for w in info.warnings)


async def test_rules_lists_the_rule_files_in_force(lsp: Start, ws_root: Path) -> None:
    (ws_root / "AGENTS.md").write_text("Run the tests.\n")
    (ws_root / ".karyi" / "rules").mkdir(parents=True)
    (ws_root / ".karyi" / "rules" / "style.md").write_text("Tabs.\n")
    client = await lsp()
    info: Any = await request(client, "karyi/rules", {})
    root = ws_root.resolve()
    assert [(r.path, r.scope) for r in info.rules] == [
        (str(root / "AGENTS.md"), "project"),
        (str(root / ".karyi" / "rules" / "style.md"), "project"),
    ]
