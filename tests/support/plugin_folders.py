"""A plugin in Claude Code's layout, as its authors write it (docs/extensions.md#plugins):
a command, an agent, a skill, a blocking hook and an MCP server (the tests' own)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GUARD = "#!/bin/sh\ncat > /dev/null\necho 'demo guard: no writing here' >&2\nexit 2\n"


def write_plugin(parent: Path, name: str = "demo", **manifest: object) -> Path:
    """`parent/name/` with every part a plugin may have; returns the folder."""
    root = parent / name
    meta = {"name": name, "version": "1.2.0", "description": "a demo plugin", **manifest}
    _put(root / ".claude-plugin" / "plugin.json", json.dumps(meta, indent=2))
    _put(
        root / "commands" / "greet.md",
        "---\ndescription: Greet someone in French\nargument-hint: NAME\n---\n"
        "Say bonjour to $ARGUMENTS, in French.\n",
    )
    _put(
        root / "agents" / "checker.md",
        "---\nname: checker\ndescription: checks spelling in files\ntools: Read, Grep\n---\n"
        "You check spelling.\n",
    )
    _put(
        root / "skills" / "french" / "SKILL.md",
        "---\nname: french\ndescription: write replies in French\n---\nAlways answer in French.\n",
    )
    _put(root / "scripts" / "guard.sh", GUARD).chmod(0o755)
    hooks = {
        "PreToolUse": [
            {
                "matcher": "Write|Edit",
                "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh"}],
            }
        ]
    }
    _put(root / "hooks" / "hooks.json", json.dumps({"hooks": hooks}, indent=2))
    server = {
        "command": sys.executable,
        "args": ["${CLAUDE_PLUGIN_ROOT}/server.py", "stdio"],
        "env": {"PYTHONPATH": str(REPO)},
    }
    _put(root / ".mcp.json", json.dumps({"mcpServers": {"tools": server}}, indent=2))
    _put(
        root / "server.py",
        "import runpy, sys\nsys.argv[0] = 'mcp_server'\n"
        "runpy.run_module('tests.support.mcp_server', run_name='__main__')\n",
    )
    return root


def _put(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def git_repo(folder: Path, bare: Path) -> str:
    """`folder` committed into a new bare repository at `bare`; returns its URL."""
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
        "PATH": "/usr/bin:/bin",
        "HOME": str(folder.parent),
    }
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "plugin"]):
        subprocess.run(["git", *args], cwd=folder, env=env, check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(folder), str(bare)], env=env, check=True)
    return f"file://{bare}"
