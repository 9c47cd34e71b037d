"""The built-in profiles: which profile has which tool, under that profile's names.

The one place that says so (see docs/tools.md). The tools themselves live in
`tools/builtin/`, one module per feature (reading, writing, editing, searching, …),
each profile's tool a face over that feature's one implementation; a module is imported
when one of its tools is first called, its declaration read from `catalogue.json` until
then (tools/catalogue.py). A profile lists
only tools that really exist. Tools that appear at run time (from a
discovery command or MCP servers) are not here: a runtime registers them in profiles of
their own (`DYNAMIC_PROFILES`).
"""

from __future__ import annotations

from karyi.tools.deferred import deferred
from karyi.tools.registry import Toolkit, ToolRegistry

PROFILES = ("karyi", "agentxml", "research", "vecli", "gateway", "memory", "review")
"""Profile names, in the order docs/tools.md presents them."""

CODING_EXTRAS = (
    "vecli.grep",
    "vecli.glob",
    "vecli.read_many_files",
    "vecli.web_fetch",
    "vecli.web_search",
    "vecli.save_memory",
    "research.call_subagent",
)
"""What the default coding agent adds to the `karyi` profile (see docs/tools.md)."""

DYNAMIC_PROFILES = ("discovered", "mcp")
"""Profiles a runtime fills at run time: discovery-command tools and MCP servers' tools."""


NAVIGATION = (
    "navigation.lookups:Definition",
    "navigation.lookups:References",
    "navigation.lookups:Hover",
    "navigation.lookups:Calls",
    "navigation.symbols:Symbols",
    "navigation.rename:Rename",
)
"""The code navigation tools: the same names and parameters in every profile that
works on code (docs/tools.md#code-navigation)."""


BUILTIN_TOOLS: dict[str, tuple[str, ...]] = {
    "karyi": (
        "commands.terminal:Command",
        "edit.pairs:EditTool",
        "read.batch:ReadTool",
        "values:GetValue",
        "commands.terminal:Input",
        "commands.terminal:Ctrl",
        "todos:TodoWrite",
        "skills:SkillTool",
        *NAVIGATION,
    ),
    "agentxml": (
        "read.single:ReadFile",
        "write:AgentxmlWriteFile",
        "listing:ListFile",
        "file_operations:DeleteFile",
        "file_operations:CopyFile",
        "file_operations:MoveFile",
        "file_operations:CreateDirectory",
        "file_operations:DeleteDirectory",
        "file_operations:GetFileInfo",
        "edit.replace:ReplaceFileContent",
        "write:AppendFile",
        "edit.insert:InsertFileContent",
        "system:GetSystemInfo",
        "system:GetEnvVariable",
        "system:SetEnvVariable",
        "web_search:SearchWeb",
        "commands.oneshot:RunCommand",
        "skills:SkillTool",
        *NAVIGATION,
    ),
    "research": (
        "subagents:CallSubagent",
        "web_search:WebSearch",
        "web_fetch:WebFetch",
        "artifacts:CreateArtifact",
        "artifacts:ReadArtifact",
        "artifacts:UpdateArtifact",
        "artifacts:RewriteArtifact",
    ),
    "vecli": (
        "listing:Ls",
        "read.single:VecliReadFile",
        "write:VecliWriteFile",
        "grep:Grep",
        "listing:Glob",
        "edit.replace:VecliEdit",
        "read.many:ReadManyFiles",
        "commands.oneshot:VecliShell",
        "web_fetch:VecliWebFetch",
        "web_search:VecliWebSearch",
        "memory:SaveMemory",
        "skills:SkillTool",
        *NAVIGATION,
    ),
    "gateway": (
        "read.single:GatewayReadFile",
        "write:CreateFile",
        "write:UpdateFile",
        "commands.oneshot:GatewayShell",
    ),
    "memory": ("memory:Remember",),
    "review": ("findings:ReportFinding",),
}
"""Each profile's built-in tools, in prompt order, as `module:Class` under
`karyi.tools.builtin`: imported when a call first needs one (tools/deferred.py)."""


def builtin_registry() -> ToolRegistry:
    """A registry holding every built-in tool, each imported on its first call."""
    reg = ToolRegistry()
    for profile in PROFILES:
        reg.declare(profile)
    for profile, places in BUILTIN_TOOLS.items():
        for place in places:
            reg.register(profile, deferred(place))
    return reg


def default_toolkit(
    registry: ToolRegistry, profile: str, agent: str = "default", *, memory: bool = False
) -> Toolkit:
    """The toolkit for `profile`; for `karyi`, the coding extras that exist are added;
    with `memory` (settings `memory.auto`), `remember`."""
    include: list[str] = []
    if profile == "karyi":
        have = {f"{p}.{t.name}" for p, t in registry.all_tools()}
        include = [ref for ref in CODING_EXTRAS if ref in have]
    if memory:
        include.append("memory.remember")
    return registry.toolkit(profile, include=include, agent=agent)
