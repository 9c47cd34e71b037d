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
