"""The built-in profiles: which profile has which tool, under that profile's names.

The one place that says so (see docs/tools.md). The tools themselves live in
`tools/builtin/`, one module per feature (reading, writing, editing, searching, …),
each profile's tool a face over that feature's one implementation. A profile lists
only tools that really exist. Tools that appear at run time (from a
discovery command or MCP servers) are not here: a runtime registers them in profiles of
their own (`DYNAMIC_PROFILES`).
"""

from __future__ import annotations

from karyi.tools.base import Tool
from karyi.tools.builtin.artifacts import (
    CreateArtifact,
    ReadArtifact,
    RewriteArtifact,
    UpdateArtifact,
)
from karyi.tools.builtin.commands.oneshot import GatewayShell, RunCommand, VecliShell
from karyi.tools.builtin.commands.terminal import Command, Ctrl, Input
from karyi.tools.builtin.edit.insert import InsertFileContent
from karyi.tools.builtin.edit.pairs import EditTool
from karyi.tools.builtin.edit.replace import ReplaceFileContent, VecliEdit
from karyi.tools.builtin.file_operations import (
    CopyFile,
    CreateDirectory,
    DeleteDirectory,
    DeleteFile,
    GetFileInfo,
    MoveFile,
)
from karyi.tools.builtin.grep import Grep
from karyi.tools.builtin.listing import Glob, ListFile, Ls
from karyi.tools.builtin.memory import SaveMemory
from karyi.tools.builtin.read.batch import ReadTool
from karyi.tools.builtin.read.many import ReadManyFiles
from karyi.tools.builtin.read.single import GatewayReadFile, ReadFile, VecliReadFile
from karyi.tools.builtin.subagents import CallSubagent
from karyi.tools.builtin.system import GetEnvVariable, GetSystemInfo, SetEnvVariable
from karyi.tools.builtin.todos import TodoWrite
from karyi.tools.builtin.values import GetValue
from karyi.tools.builtin.web_fetch import VecliWebFetch, WebFetch
from karyi.tools.builtin.web_search import SearchWeb, VecliWebSearch, WebSearch
from karyi.tools.builtin.write import (
    AgentxmlWriteFile,
    AppendFile,
    CreateFile,
    UpdateFile,
    VecliWriteFile,
)
from karyi.tools.registry import Toolkit, ToolRegistry

PROFILES = ("karyi", "agentxml", "research", "vecli", "gateway")
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


def builtin_registry() -> ToolRegistry:
    """A registry holding every built-in tool."""
    reg = ToolRegistry()
    for profile in PROFILES:
        reg.declare(profile)
    tools: dict[str, list[Tool]] = {
        "karyi": [Command(), EditTool(), ReadTool(), GetValue(), Input(), Ctrl(), TodoWrite()],
        "agentxml": [
            ReadFile(),
            AgentxmlWriteFile(),
            ListFile(),
            DeleteFile(),
            CopyFile(),
            MoveFile(),
            CreateDirectory(),
            DeleteDirectory(),
            GetFileInfo(),
            ReplaceFileContent(),
            AppendFile(),
            InsertFileContent(),
            GetSystemInfo(),
            GetEnvVariable(),
            SetEnvVariable(),
            SearchWeb(),
            RunCommand(),
        ],
        "research": [
            CallSubagent(),
            WebSearch(),
            WebFetch(),
            CreateArtifact(),
            ReadArtifact(),
            UpdateArtifact(),
            RewriteArtifact(),
        ],
        "vecli": [
            Ls(),
            VecliReadFile(),
            VecliWriteFile(),
            Grep(),
            Glob(),
            VecliEdit(),
            ReadManyFiles(),
            VecliShell(),
            VecliWebFetch(),
            VecliWebSearch(),
            SaveMemory(),
        ],
        "gateway": [GatewayReadFile(), CreateFile(), UpdateFile(), GatewayShell()],
    }
    for profile, items in tools.items():
        for tool in items:
            reg.register(profile, tool)
    return reg


def default_toolkit(registry: ToolRegistry, profile: str, agent: str = "default") -> Toolkit:
    """The toolkit for `profile`; for `karyi`, the coding extras that exist are added."""
    include: list[str] = []
    if profile == "karyi":
        have = {f"{p}.{t.name}" for p, t in registry.all_tools()}
        include = [ref for ref in CODING_EXTRAS if ref in have]
    return registry.toolkit(profile, include=include, agent=agent)
