"""A plugin's parts as settings: MCP servers, hooks and agents translated from Claude
Code's files, added under the user's own settings; a workspace's plugin only tightens."""

from __future__ import annotations

import json
import os
from pathlib import Path

from karyi.agent.frontend.plugins import add_plugin, set_enabled
from karyi.settings import load_settings
from karyi.settings.plugin_layer import plugin_layer
from karyi.settings.plugins import enabled_plugins
from tests.support.plugin_folders import write_plugin


def _conf() -> Path:
    return Path(os.environ["KARYI_CONFIG_DIR"])


def test_a_users_plugin_brings_its_servers_hooks_and_agents(tmp_path: Path, ws_root: Path) -> None:
    add_plugin(str(write_plugin(tmp_path / "src")), "user", ws_root)
    (plugin,) = enabled_plugins(ws_root)
    root = plugin.root
    assert root == _conf() / "plugins" / "demo"
    layer, warnings = plugin_layer(plugin)
    assert warnings == []
    server = layer["mcpServers"]["demo:tools"]
    assert server["args"] == [f"{root}/server.py", "stdio"] and server["cwd"] == str(root)
    assert layer["hooks"] == {
        "beforeTool": [
            {"command": f"{root}/scripts/guard.sh", "timeout": 60.0, "match": m}
            for m in (
                "write_file",
                "create_file",
                "update_file",
                "append_file",
                "edit",
                "replace_file_content",
                "insert_file_content",
            )
        ]
    }
    assert layer["agents"] == {
        "demo:checker": {
            "description": "checks spelling in files",
            "instructions": "You check spelling.",
            "tools": ["karyi.read", "vecli.read_many_files", "vecli.grep"],
        }
    }
    settings = load_settings(ws_root)
    assert "demo:tools" in settings.mcp_servers
    assert next(h.command for h in settings.hooks.before_tool) == f"{root}/scripts/guard.sh"
    assert "demo:checker" in settings.agents.named
    assert settings.warnings == ()


def test_the_users_own_settings_win_and_hooks_add_up(tmp_path: Path, ws_root: Path) -> None:
    plugin = write_plugin(tmp_path / "src")
    (plugin / "settings.json").write_text(json.dumps({"maxSteps": 3}))
    add_plugin(str(plugin), "user", ws_root)
    (_conf() / "settings.json").write_text(
        json.dumps({"hooks": {"beforeTool": [{"command": "mine"}]}})
    )
    settings = load_settings(ws_root)
    assert next(h.command for h in settings.hooks.before_tool) == "mine"
    assert len(settings.hooks.before_tool) == 8
    assert settings.max_steps != 3  # a plugin adds, it never changes a value


def test_a_disabled_plugin_adds_nothing(tmp_path: Path, ws_root: Path) -> None:
    add_plugin(str(write_plugin(tmp_path / "src")), "user", ws_root)
    set_enabled("demo", False, root=ws_root)
    settings = load_settings(ws_root)
    assert "demo:tools" not in settings.mcp_servers and not settings.hooks.before_tool


def test_a_workspace_plugin_may_only_tighten(tmp_path: Path, ws_root: Path) -> None:
    plugin = write_plugin(tmp_path / "src")
    loosen = {"permissions": {"tools": {"command": "auto", "edit": "deny"}}}
    (plugin / "settings.json").write_text(json.dumps(loosen))
    add_plugin(str(plugin), "workspace", ws_root)
    assert (ws_root / ".karyi" / "plugins" / "demo" / ".mcp.json").is_file()
    settings = load_settings(ws_root)
    said = {(w.key, w.message.split(":")[0]) for w in settings.warnings}
    source = "plugin demo (workspace)"
    assert {w.source for w in settings.warnings} == {source}
    assert ("hooks", "ignored") in said and ("mcpServers", "ignored") in said
    assert ("permissions.tools.command", "'auto' ignored") in said
    assert not settings.hooks.before_tool and "demo:tools" not in settings.mcp_servers
    assert settings.permissions.tools.get("command") is None
    assert settings.permissions.tools.get("edit") == "deny"  # tightening is kept
    assert "demo:checker" in settings.agents.named  # a workspace may add subagents
