"""Calling built-in tools directly, as the tool tests do: by `profile.name`, no executor."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from karyi.core.results import ToolResult
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry

REG = builtin_registry()
"""Every built-in tool, looked up by `profile.name`."""


async def call(ref: str, params: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Run the tool `ref` (e.g. `vecli.read_file`) with `params`, checks included."""
    return await REG.find(ref).run(params, ctx)


def code(result: ToolResult) -> str | None:
    """The result's error code, None when it succeeded."""
    return result.error.code if result.error else None


def external_write(path: Path, text: str) -> None:
    """Write `path` from another process, as an editor or a build would."""
    code_ = "import sys; open(sys.argv[1], 'w').write(sys.argv[2])"
    subprocess.run([sys.executable, "-c", code_, str(path), text], check=True)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root` with its bytes, to show that nothing changed."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}
