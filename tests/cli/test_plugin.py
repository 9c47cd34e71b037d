"""`karyi plugin`: add from a folder, a git repository and a marketplace; list, enable,
disable, remove; refused inside the agent's own shell."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from tests.support.karyi_process import run
from tests.support.plugin_folders import git_repo, write_plugin


def _env() -> dict[str, str]:
    return {"KARYI_CONFIG_DIR": os.environ["KARYI_CONFIG_DIR"]}


def karyi(*args: str, ws: Path) -> str:
    proc = run(
        ["plugin", *args, "--workspace", str(ws)]
        if args[0] != "marketplace"
        else ["plugin", *args],
        env=_env(),
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def listed(ws: Path) -> list[dict[str, object]]:
    return [
        {k: p[k] for k in ("name", "scope", "enabled", "version")}
        for p in json.loads(karyi("list", "--json", ws=ws))
    ]


def test_add_from_a_folder_then_list_disable_enable_remove(tmp_path: Path, ws_root: Path) -> None:
    source = write_plugin(tmp_path / "src")
    out = karyi("add", str(source), ws=ws_root)
    conf = Path(os.environ["KARYI_CONFIG_DIR"])
    assert out == f"installed demo 1.2.0 (user) in {conf / 'plugins' / 'demo'}\n"
    installed = conf / "plugins" / "demo"
    for rel in (".claude-plugin/plugin.json", "commands/greet.md", "hooks/hooks.json", ".mcp.json"):
        assert (installed / rel).read_bytes() == (source / rel).read_bytes()  # unchanged
    assert listed(ws_root) == [
        {"name": "demo", "scope": "user", "enabled": True, "version": "1.2.0"}
    ]
    assert karyi("disable", "demo", ws=ws_root) == "disabled demo (user)\n"
    assert listed(ws_root)[0]["enabled"] is False
    karyi("enable", "demo", ws=ws_root)
    assert listed(ws_root)[0]["enabled"] is True
    assert karyi("remove", "demo", ws=ws_root) == "removed demo (user)\n"
    assert listed(ws_root) == [] and not installed.exists()


def test_add_from_a_git_repository_into_the_workspace(tmp_path: Path, ws_root: Path) -> None:
    url = git_repo(write_plugin(tmp_path / "src"), tmp_path / "demo.git")
    karyi("add", url, "--scope", "workspace", ws=ws_root)
    installed = ws_root / ".karyi" / "plugins" / "demo"
    assert (installed / "skills" / "french" / "SKILL.md").is_file()
    assert not (installed / ".git").exists()
    assert listed(ws_root) == [
        {"name": "demo", "scope": "workspace", "enabled": True, "version": "1.2.0"}
    ]


def test_a_marketplace_from_git_lists_plugins_to_install(tmp_path: Path, ws_root: Path) -> None:
    market = tmp_path / "market"
    write_plugin(market / "plugins", "demo")
    (market / ".claude-plugin").mkdir(parents=True)
    (market / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps(
            {
                "name": "team-tools",
                "owner": {"name": "Team"},
                "plugins": [{"name": "demo", "source": "./plugins/demo", "description": "demo"}],
            }
        )
    )
    url = git_repo(market, tmp_path / "market.git")
    shutil.rmtree(market)  # only the repository is left
    out = karyi("marketplace", "add", url, ws=ws_root)
    assert out.startswith("added marketplace team-tools (1 plugins)")
    assert "demo@team-tools  demo" in karyi("marketplace", "list", ws=ws_root)
    karyi("add", "demo@team-tools", ws=ws_root)
    assert listed(ws_root)[0]["name"] == "demo"
    missing = run(["plugin", "add", "nope@team-tools", "--workspace", str(ws_root)], env=_env())
    assert missing.returncode == 1
    assert "marketplace team-tools has no plugin 'nope' (it has: demo)" in missing.stderr


def test_the_agents_shell_cannot_install_a_plugin(tmp_path: Path, ws_root: Path) -> None:
    source = write_plugin(tmp_path / "src")
    proc = run(
        ["plugin", "add", str(source), "--workspace", str(ws_root)],
        env={**_env(), "KARYI_AGENT_SHELL": "1"},
    )
    assert proc.returncode == 2
    assert "not available inside a shell the agent runs" in proc.stderr
    assert listed(ws_root) == []


def test_a_folder_that_is_no_plugin_is_refused(tmp_path: Path, ws_root: Path) -> None:
    (tmp_path / "empty").mkdir()
    proc = run(["plugin", "add", str(tmp_path / "empty"), "--workspace", str(ws_root)], env=_env())
    assert proc.returncode == 1 and "not a plugin" in proc.stderr
