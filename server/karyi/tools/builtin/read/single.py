"""Seed 001's read-only file tools: `read_file`, `list_file`, `get_file_info`.

Their results are `{"success": true, "data": ...}` in the agentxml dialect, so `data`
holds what the seed says each tool returns: the content string, the listing string,
the info object.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from karyi.core.results import ToolResult
from karyi.tools.base import Tool
from karyi.tools.builtin.fileio import file_keys, read_text
from karyi.tools.builtin.read.batch import listing_lines
from karyi.tools.context import ToolContext
from karyi.workspace.files import DEFAULT_LINE_LIMIT, file_info, list_dir, text_window


class ReadFile(Tool):
    """Seed 001 `read_file(filePath)`."""

    name = "read_file"
    display_name = "Read file"
    description = (
        f"Read a text file's content. Shows up to {DEFAULT_LINE_LIMIT} lines; "
        "offset/limit (1-based lines) read further."
    )
    parameters = {
        "type": "object",
        "properties": {
            "filePath": {"type": "string", "description": "file path"},
            "offset": {"type": "integer", "minimum": 1, "description": "first line (1-based)"},
            "limit": {"type": "integer", "minimum": 1, "description": "number of lines"},
        },
        "required": ["filePath"],
        "additionalProperties": False,
    }
    example = {"filePath": "info.txt"}

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The file read: a read waits for an earlier call in the reply that edits it."""
        return file_keys([ctx.workspace.resolve(params["filePath"], param="filePath")])

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Read {params.get('filePath')}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The content string, with a note when only part of the file is shown."""
        src = str(params["filePath"])
        path = ctx.workspace.resolve(src, param="filePath")
        snap = read_text(ctx, path, src)
        w = text_window(
            snap.text,
            src,
            size=snap.size,
            lossy=snap.lossy,
            offset=int(params.get("offset", 1)) - 1,
            limit=int(params.get("limit", DEFAULT_LINE_LIMIT)),
        )
        content = w.text
        if w.truncated:
            more = (
                f"; pass offset={w.last_line + 1} to read on" if w.last_line < w.total_lines else ""
            )
            content += f"\n[showing lines {w.first_line}-{w.last_line} of {w.total_lines}{more}]"
        return ToolResult.ok(
            content,
            data=content,
            display=f"Read `{src}` ({w.total_lines} lines)",
            lines=[w.first_line, w.last_line],
            total_lines=w.total_lines,
        )


class ListFile(Tool):
    """Seed 001 `list_file(workspacePath)`."""

    name = "list_file"
    display_name = "List files"
    description = "List the files and directories in a directory (one level)."
    parameters = {
        "type": "object",
        "properties": {
            "workspacePath": {
                "type": "string",
                "description": "directory path (default: the workspace root)",
                "default": ".",
            }
        },
        "additionalProperties": False,
    }
    example = {"workspacePath": "src"}

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """See `Tool.scans_tree`: a listing."""
        return True

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"List {params.get('workspacePath', '.')}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The listing as one string, directories first."""
        src = str(params.get("workspacePath", "."))
        path = ctx.workspace.resolve(src, param="workspacePath")
        entries, ignored = list_dir(path, src, ignore=ctx.workspace.gitignore)
        lines = listing_lines(entries)
        if ignored:
            lines.append(f"({ignored} git-ignored entries not shown)")
        text = "\n".join(lines) if lines else "(empty directory)"
        return ToolResult.ok(text, data=text, display=f"Listed `{src}` ({len(entries)} entries)")


class GetFileInfo(Tool):
    """Seed 001 `get_file_info(filePath)`."""

    name = "get_file_info"
    display_name = "File info"
    description = "Get a file's or directory's details: type, size, times, permissions."
    parameters = {
        "type": "object",
        "properties": {"filePath": {"type": "string", "description": "file path"}},
        "required": ["filePath"],
        "additionalProperties": False,
    }
    example = {"filePath": "package.json"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Get info on {params.get('filePath')}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The info object (`data`), also as JSON text for the model."""
        src = str(params["filePath"])
        info = file_info(ctx.workspace.resolve(src, param="filePath"), src)
        return ToolResult.ok(
            json.dumps(info, ensure_ascii=False, indent=2), data=info, display=f"Info on `{src}`"
        )
