"""What the terminal commands share beyond the startup in `karyi.agent.frontend.startup`."""

from __future__ import annotations

import sys
from typing import IO

from karyi.agent.runtime import Runtime
from karyi.tools.registry import Toolkit


def open_tty(stdin_used: bool) -> IO[str] | None:
    """The terminal to ask the user on: stdin when it is a terminal the command does not
    read its input from, else `/dev/tty`; None when there is no terminal."""
    if not stdin_used and sys.stdin.isatty():
        return sys.stdin
    try:
        return open("/dev/tty", encoding="utf-8")
    except OSError:
        return None


async def with_runtime_tools(runtime: Runtime, toolkit: Toolkit) -> Toolkit:
    """`toolkit` plus the discovered and MCP tools; what went wrong is said on stderr."""
    tools, warnings = await runtime.extra_tools()
    for warning in warnings:
        print(f"karyi: {warning}", file=sys.stderr)
    return toolkit.extended(tools)
