"""Where an ACP session opens: its workspace root (`cwd`), further roots
(`additionalDirectories`) and the client's MCP servers, checked as ACP asks before the
session is answered. Cheap (no agent stack): `session/new` answers at once
(docs/acp.md#start-up)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from karyi.acp.errors import invalid
from karyi.acp.mcp import ClientServer


@dataclass(frozen=True)
class Where:
    """Where a session opens: its workspace root, further roots, the client's MCP servers."""

    root: Path
    extra: list[str]
    servers: list[ClientServer]


def checked_where(cwd: str, extra: list[str], servers: list[ClientServer]) -> Where:
    """`cwd` and `additionalDirectories` as absolute, existing directories; -32602
    naming the field otherwise."""
    root = Path(cwd)
    if not root.is_absolute():
        raise invalid("cwd", f"{cwd!r} is not an absolute path")
    if not root.is_dir():
        raise invalid("cwd", f"{cwd!r} is not a directory")
    for path in extra:
        if not Path(path).is_absolute():
            raise invalid("additionalDirectories", f"{path!r} is not an absolute path")
        if not Path(path).is_dir():
            raise invalid("additionalDirectories", f"{path!r} is not a directory")
    return Where(root, extra, servers)
