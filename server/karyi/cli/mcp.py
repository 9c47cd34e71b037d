"""`karyi mcp`: start the MCP servers of the settings and show their status and tools.

Also runs the discovery command, so one command shows every tool found at run time.
Exit code 1 when a server or the discovery failed, 0 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
from pathlib import Path


async def _status(root: Path, as_json: bool) -> int:
    from karyi.agent.runtime import Runtime
    from karyi.settings import load_settings

    settings = load_settings(root)
    for warning in settings.warnings:
        print(f"karyi: warning: {warning}", file=sys.stderr)
    runtime = Runtime.open(root, settings)
    try:
        _tools, warnings = await runtime.extra_tools()
        servers = runtime.mcp.status()
        discovered = list(runtime.registry.profile("discovered"))
    finally:
        await runtime.aclose()
    if as_json:
        body = {
            "servers": [dataclasses.asdict(s) for s in servers],
            "discovered": discovered,
            "warnings": warnings,
        }
        print(json.dumps(body, ensure_ascii=False, indent=2))
    else:
        for s in servers:
            print(f"{s.name}: {s.state} ({s.transport or 'invalid'}) {s.where}".rstrip())
            if s.error:
                print(f"  error: {s.error}")
            if s.tools:
                print(f"  tools: {', '.join(s.tools)}")
        if not servers:
            print("no MCP servers in settings (mcpServers)")
        if discovered:
            print(f"discovered tools: {', '.join(discovered)}")
        for w in warnings:
            print(f"warning: {w}", file=sys.stderr)
    failed = any(s.state in ("failed", "invalid") for s in servers)
    return 1 if failed or any("discoveryCommand failed" in w for w in warnings) else 0


def cmd_mcp(args: argparse.Namespace) -> int:
    """Show the MCP servers and discovered tools."""
    root = Path(args.workspace or ".").expanduser().resolve()
    if not root.is_dir():
        print(f"karyi: error: --workspace {root}: not a directory", file=sys.stderr)
        return 2
    return asyncio.run(_status(root, args.json))
