"""Claude Code's tool names, as skills, plugins and their hooks write them, and Karyi's
tools that do the same job (docs/extensions.md#plugins)."""

from __future__ import annotations

CLAUDE_TOOLS: dict[str, tuple[str, ...]] = {
    "bash": ("command", "run_command", "shell"),
    "read": ("read", "read_file", "read_many_files"),
    "edit": ("edit", "replace_file_content", "insert_file_content"),
    "multiedit": ("edit", "replace_file_content"),
    "write": ("write_file", "create_file", "update_file", "append_file"),
    "grep": ("grep",),
    "glob": ("glob",),
    "ls": ("ls", "list_file"),
    "webfetch": ("web_fetch",),
    "websearch": ("web_search", "search_web"),
    "todowrite": ("todo_write",),
}
"""A Claude Code tool name (lower case) -> the names of Karyi's tools in every profile."""

CLAUDE_AGENT_TOOLS: dict[str, tuple[str, ...]] = {
    "bash": ("karyi.command",),
    "read": ("karyi.read", "vecli.read_many_files"),
    "edit": ("karyi.edit",),
    "multiedit": ("karyi.edit",),
    "write": ("vecli.write_file",),
    "grep": ("vecli.grep",),
    "glob": ("vecli.glob",),
    "ls": ("vecli.ls",),
    "webfetch": ("research.web_fetch",),
    "websearch": ("research.web_search",),
    "todowrite": ("karyi.todo_write",),
}
"""A Claude Code tool name (lower case) -> the tool references a subagent's `tools` takes."""


def karyi_names(claude: str) -> tuple[str, ...]:
    """Karyi's tool names for a Claude Code tool name; a name Karyi has already (or an
    MCP tool's) stands for itself."""
    return CLAUDE_TOOLS.get(claude.strip().lower(), (claude.strip(),))
