"""`karyi tools`: the prompt and declarations a model gets, as a user prints them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.karyi_process import run


def test_tools_prints_the_prompt_and_declarations(ws_root: Path) -> None:
    proc = run(
        ["tools", "--workspace", str(ws_root), "--dialect", "toolcall", "--profile", "vecli"]
    )
    assert proc.returncode == 0
    assert "### ls" in proc.stdout and "<tool_call>" in proc.stdout
    decl = run(["tools", "--workspace", str(ws_root), "--profile", "vecli", "--json"])
    assert [d["name"] for d in json.loads(decl.stdout)] == [
        "ls",
        "read_file",
        "write_file",
        "grep",
        "glob",
        "edit",
        "read_many_files",
        "shell",
        "web_fetch",
        "web_search",
        "save_memory",
        "skill",
        "definition",
        "references",
        "hover",
        "calls",
        "symbols",
        "rename",
    ]
