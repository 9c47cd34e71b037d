"""`karyi mcp`: the servers' status and tools, as a user would check them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KARYI = [sys.executable, "-m", "karyi"]


def test_karyi_mcp_lists_servers_their_state_and_tools(tmp_path: Path, ws_root: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    servers = {
        "calc": {
            "command": sys.executable,
            "args": ["-m", "tests.support.mcp_server", "stdio"],
            "cwd": str(REPO),
            "includeTools": ["add", "echo"],
        },
        "nothing": {"command": "/no/such/server"},
    }
    (config / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    env = {**os.environ, "KARYI_CONFIG_DIR": str(config)}
    proc = subprocess.run(
        [*KARYI, "mcp", "--workspace", str(ws_root), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    body = json.loads(proc.stdout)
    calc, nothing = body["servers"]
    assert (calc["name"], calc["state"], calc["transport"]) == ("calc", "connected", "stdio")
    assert calc["tools"][:2] == ["add", "echo"]
    assert nothing["state"] == "failed" and "/no/such/server" in nothing["error"]
    text = subprocess.run(
        [*KARYI, "mcp", "--workspace", str(ws_root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "calc: connected (stdio)" in text.stdout and "nothing: failed (stdio)" in text.stdout


def _calc_settings(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "config"
    config.mkdir()
    calc = {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_server", "stdio"],
        "cwd": str(REPO),
        "includeTools": ["add"],
    }
    (config / "settings.json").write_text(json.dumps({"mcpServers": {"calc": calc}}))
    return {**os.environ, "KARYI_CONFIG_DIR": str(config)}


def test_karyi_tools_shows_the_mcp_tools_the_model_gets(tmp_path: Path, ws_root: Path) -> None:
    env = _calc_settings(tmp_path)
    args = [*KARYI, "tools", "--workspace", str(ws_root), "--json"]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    names = [d["name"] for d in json.loads(proc.stdout)]
    assert "calc__add" in names and "read_file" not in names[names.index("calc__add") :]
    builtin = subprocess.run(
        [*args, "--builtin"], capture_output=True, text=True, env=env, timeout=120
    )
    assert "calc__add" not in [d["name"] for d in json.loads(builtin.stdout)]


def test_karyi_exec_calls_an_mcp_tool_with_typed_arguments(tmp_path: Path, ws_root: Path) -> None:
    env = _calc_settings(tmp_path)
    reply = "Adding.<tool_call><name>calc__add</name><params><a>2</a><b>40</b></params></tool_call>"
    args = [*KARYI, "exec", "--workspace", str(ws_root), "--dialect", "toolcall"]
    proc = subprocess.run(
        [*args, "--profile", "agentxml", "--yes", "--json", "-"],
        input=reply,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    [result] = json.loads(proc.stdout)
    assert (result["name"], result["success"]) == ("calc__add", True)
    assert "42" in result["llm_content"]
