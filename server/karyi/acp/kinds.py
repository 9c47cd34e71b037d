"""What kind of work a tool call is, in ACP's words (`read`, `edit`, `execute`, …), so
an editor can pick the icon and the way it shows the call (docs/acp.md)."""

from __future__ import annotations

from acp.schema import ToolKind

_KINDS: dict[str, ToolKind] = {
    "read": "read",
    "read_file": "read",
    "read_many_files": "read",
    "get_file_info": "read",
    "read_artifact": "read",
    "edit": "edit",
    "write_file": "edit",
    "append_file": "edit",
    "create_file": "edit",
    "update_file": "edit",
    "replace_file_content": "edit",
    "insert_file_content": "edit",
    "create_directory": "edit",
    "copy_file": "edit",
    "create_artifact": "edit",
    "update_artifact": "edit",
    "rewrite_artifact": "edit",
    "save_memory": "edit",
    "delete_file": "delete",
    "delete_directory": "delete",
    "move_file": "move",
    "grep": "search",
    "glob": "search",
    "ls": "search",
    "list_file": "search",
    "web_search": "search",
    "search_web": "search",
    "command": "execute",
    "run_command": "execute",
    "shell": "execute",
    "input": "execute",
    "ctrl": "execute",
    "web_fetch": "fetch",
    "call_subagent": "think",
}


def tool_kind(name: str) -> ToolKind:
    """The ACP kind of the tool `name`; `other` for tools found at run time (MCP,
    discovery) and the rest."""
    return _KINDS.get(name, "other")
