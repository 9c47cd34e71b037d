"""The organisation's MCP allowlist holds on every way a server can be added: the user's
and the workspace's settings, a plugin's `.mcp.json`, a program's `with_values` (as ACP
adds its client's servers), `karyi mcp`. One check decides (`Settings.mcp_refusal`, in
the runtime's MCP manager), and it fails closed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from karyi.agent.frontend.plugins import add_plugin
from karyi.agent.runtime import Runtime
from karyi.settings import Settings, load_settings
from tests.support.plugin_folders import write_plugin

REPO = Path(__file__).resolve().parents[2]
CALC = {
    "command": sys.executable,
    "args": ["-m", "tests.support.mcp_server", "stdio"],
    "cwd": str(REPO),
}
REFUSED = "refused by your organisation's settings (mcpServers"


def _managed(conf: Path, servers: object) -> Path:
    path = Path(os.environ["KARYI_MANAGED_SETTINGS"])
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def _states(rt: Runtime) -> dict[str, str]:
    return {s.name: s.error or s.state for s in rt.mcp.status()}


def test_the_settings_layers_and_a_program_add_nothing(tmp_path: Path, ws_root: Path) -> None:
    conf = Path(os.environ["KARYI_CONFIG_DIR"])
    _managed(conf, {"calc": CALC})
    (conf / "settings.json").write_text(json.dumps({"mcpServers": {"mine": {"command": "x"}}}))
    (ws_root / ".karyi").mkdir(exist_ok=True)
    (ws_root / ".karyi" / "settings.json").write_text(
        json.dumps({"mcpServers": {"theirs": {"command": "y"}}})
    )
    settings = load_settings(ws_root)
    assert settings.mcp_servers == {"calc": CALC}
    changed = {"calc": {**CALC, "args": ["-m", "evil"]}, "extra": {"command": "z"}}
    rt = Runtime.open(ws_root, settings.with_values(mcpServers=changed))
    try:
        states = _states(rt)
        assert set(states) == {"calc", "extra"} and all(REFUSED in v for v in states.values())
        assert any(REFUSED in w for w in rt.mcp.warnings)
    finally:
        rt.close()
    rt = Runtime.open(ws_root, settings)
    try:
        assert _states(rt) == {"calc": "idle"}  # exactly as the organisation wrote it
    finally:
        rt.close()


def test_a_plugins_servers_are_refused(tmp_path: Path, ws_root: Path) -> None:
    add_plugin(str(write_plugin(tmp_path / "src")), "user", ws_root)
    assert "demo:tools" in load_settings(ws_root).mcp_servers
    _managed(Path(os.environ["KARYI_CONFIG_DIR"]), {})
    settings = load_settings(ws_root)
    assert settings.mcp_servers == {}
    plugin_servers = {"demo:tools": {"command": "python3"}}
    rt = Runtime.open(ws_root, settings.with_values(mcpServers=plugin_servers))
    try:
        assert REFUSED in _states(rt)["demo:tools"]
    finally:
        rt.close()


def test_a_managed_value_that_is_not_an_object_allows_none(ws_root: Path) -> None:
    settings = load_settings(ws_root).with_values(mcpServers={"calc": CALC})
    assert settings.mcp_refusal("calc", CALC) is None  # no managed list: allowed
    odd = Settings(settings.values, managed={"mcpServers": ["calc"]})
    assert REFUSED in (odd.mcp_refusal("calc", CALC) or "")


def test_karyi_mcp_starts_only_the_organisations_servers(tmp_path: Path, ws_root: Path) -> None:
    conf = Path(os.environ["KARYI_CONFIG_DIR"])
    managed = _managed(conf, {"calc": {**CALC, "includeTools": ["add"]}})
    (conf / "settings.json").write_text(json.dumps({"mcpServers": {"mine": {"command": "x"}}}))
    env = {**os.environ, "KARYI_CONFIG_DIR": str(conf), "KARYI_MANAGED_SETTINGS": str(managed)}
    proc = subprocess.run(
        [sys.executable, "-m", "karyi", "mcp", "--workspace", str(ws_root), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    body = json.loads(proc.stdout)
    assert [(s["name"], s["state"]) for s in body["servers"]] == [("calc", "connected")]
