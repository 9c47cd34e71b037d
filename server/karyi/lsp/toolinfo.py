"""What the agent can call and follows: its tools by source, the MCP servers' state,
restarting one, the project rules in force (docs/context.md#rules), and the slash
commands a message may start with (`karyi/commands`, docs/workflow.md), and the settings
the organisation pins (`karyi/pinned`, docs/security.md#managed-settings).

`karyi/tools` starts what the settings configure (the discovery command, the MCP
servers) as a turn would, so an editor can show a failing server before the user
wonders why a tool is missing; `karyi/restartMcpServer` tries a server again.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from karyi.lsp.errors import RequestFailed, rpc
from karyi.lsp.params import checked
from karyi.lsp.server import KaryiServer
from karyi.lsp.wire.results import (
    McpServerJson,
    MemoryFileList,
    PinnedSetting,
    PinnedSettings,
    RuleList,
    SlashCommandList,
    ToolsInfo,
)


@rpc
async def tools(ls: KaryiServer, raw: Any) -> ToolsInfo:
    """`karyi/tools`: every tool by source and every MCP server by state."""
    checked("karyi/tools", raw)
    from karyi.settings.plugins import installed
    from karyi.tools.profiles import DYNAMIC_PROFILES  # not at start-up: see lifecycle
    from karyi.tools.skill_files import load_skills

    runtime = ls.require_host().runtime
    _, warnings = await runtime.extra_tools()
    listed = [(t, "builtin") for t in runtime.spec().toolkit]
    listed += [
        (t, profile)  # the profile is the source: "discovered" or "mcp"
        for profile in DYNAMIC_PROFILES
        for t in runtime.registry.profile(profile).values()
    ]
    servers = runtime.mcp.status() if runtime.settings.mcp_servers else []
    folders = runtime.workspace.folders
    return {
        "tools": [
            {"name": t.name, "description": t.description, "source": source} for t, source in listed
        ],
        "servers": [dataclasses.asdict(s) for s in servers],
        "skills": [s.to_json() for s in load_skills(folders).skills.values()],
        "plugins": [p.to_json() for p in installed(runtime.workspace.root)],
        "warnings": warnings,
    }


@rpc
async def restart_mcp_server(ls: KaryiServer, raw: Any) -> McpServerJson:
    """`karyi/restartMcpServer`: try one configured MCP server again."""
    p = checked("karyi/restartMcpServer", raw)
    runtime = ls.require_host().runtime
    invalid = {s.name: s.error for s in runtime.mcp.status() if s.state == "invalid"}
    if p["name"] in invalid:
        raise RequestFailed(f"cannot start {p['name']!r}: {invalid[p['name']]}")
    try:
        status = await runtime.restart_mcp(p["name"])
    except KeyError:
        names = ", ".join(s.name for s in runtime.mcp.status()) or "none"
        raise RequestFailed(
            f"no MCP server {p['name']!r} in the settings (servers: {names})"
        ) from None
    return dataclasses.asdict(status)


@rpc
async def rules(ls: KaryiServer, raw: Any) -> RuleList:
    """`karyi/rules`: the rule files in force for a session (or for a new one)."""
    p = checked("karyi/rules", raw)
    runtime = ls.require_host().runtime
    return {"rules": [r.to_json() for r in runtime.rules(p.get("sessionId"))]}


async def slash_commands(ls: KaryiServer, raw: Any) -> SlashCommandList:
    """`karyi/commands`: `/plan`, `/act` and the custom commands (docs/workflow.md)."""
    import asyncio

    from karyi.agent.prompting.slash_commands import slash_commands as listed

    checked("karyi/commands", raw)
    root = ls.require_host().runtime.workspace.root
    return {"commands": await asyncio.to_thread(listed, root)}


async def memory(ls: KaryiServer, raw: Any) -> MemoryFileList:
    """`karyi/memory`: the memory files `/memory` opens (docs/extensions.md#memory)."""
    import asyncio

    from karyi.agent.prompting.memory_view import memory_files

    checked("karyi/memory", raw)
    runtime = ls.require_host().runtime
    folders = runtime.workspace.folders
    return {"files": await asyncio.to_thread(memory_files, folders, runtime.settings)}


async def pinned(ls: KaryiServer, raw: Any) -> PinnedSettings:
    """`karyi/pinned`: every setting the organisation's managed file pins, with its value
    and the file, for the editor to show (docs/security.md#managed-settings)."""
    import json

    from karyi.settings.managed import managed_settings_path

    checked("karyi/pinned", raw)
    settings = ls.require_host().runtime.settings
    rows: list[PinnedSetting] = [
        {"key": k, "value": json.dumps(v)} for k, v in settings.pinned_values()
    ]
    return {"file": str(managed_settings_path()), "settings": rows}
