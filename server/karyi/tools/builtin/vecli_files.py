"""Seed 003's (Gemini-CLI-compatible) `ls` and `read_file`.

Names, parameters and the wording of truncation notes follow Gemini CLI, so prompts
and habits carried over from it keep working; relative paths are accepted as well as
the absolute ones Gemini CLI insists on.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import Any

from karyi.core.results import ToolResult
from karyi.tools.base import Tool
from karyi.tools.builtin.fileio import file_keys, read_text
from karyi.tools.context import ToolContext
from karyi.workspace.files import DEFAULT_LINE_LIMIT, MAX_LINE_CHARS, list_dir, text_window


class Ls(Tool):
    """Gemini CLI `list_directory`, named `ls` as in seed 003."""

    name = "ls"
    display_name = "ReadFolder"
    description = (
        "Lists the names of files and subdirectories directly within a specified directory "
        "path. Can optionally ignore entries matching provided glob patterns."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "The absolute path to the directory to list (relative paths "
                "are taken from the workspace root)",
            },
            "ignore": {
                "type": "array",
                "items": {"type": "string"},
                "description": "List of glob patterns to ignore",
            },
            "respect_git_ignore": {
                "type": "boolean",
                "description": "Whether to respect .gitignore patterns (default true)",
                "default": True,
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    }
    example = {"path": "src"}

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """See `Tool.scans_tree`: a listing."""
        return True

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"List {params.get('path')}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Directory listing for PATH:` then `[DIR] name` / `name` lines."""
        path = ctx.workspace.resolve(params["path"])
        shown = str(path)
        ignore = ctx.workspace.gitignore if params.get("respect_git_ignore", True) else None
        entries, git_ignored = list_dir(path, str(params["path"]), ignore=ignore)
        patterns = [str(p) for p in params.get("ignore", [])]
        kept = [e for e in entries if not any(fnmatch.fnmatch(e.name, p) for p in patterns)]
        if not kept:
            text = f"Directory {shown} is empty."
            if git_ignored:
                text += f"\n\n({git_ignored} git-ignored)"
            return ToolResult.ok(text, display="Directory is empty.", data={"entries": []})
        lines = [f"[DIR] {e.name}" if e.is_dir else e.name for e in kept]
        text = f"Directory listing for {shown}:\n" + "\n".join(lines)
        if git_ignored:
            text += f"\n\n({git_ignored} git-ignored)"
        display = f"Listed {len(kept)} item(s)." + (
            f" ({git_ignored} git-ignored)" if git_ignored else ""
        )
        data = {
            "entries": [{"name": e.name, "isDirectory": e.is_dir, "size": e.size} for e in kept]
        }
        return ToolResult.ok(text, display=display, data=data)


class ReadFileV(Tool):
    """Gemini CLI `read_file(absolute_path, offset, limit)`."""

    name = "read_file"
    display_name = "ReadFile"
    description = (
        "Reads and returns the content of a specified file. If the file is large, the "
        "content will be truncated; the response says so and how to read more using "
        "'offset' and 'limit'. Binary files are refused."
    )
    parameters = {
        "type": "object",
        "properties": {
            "absolute_path": {
                "type": "string",
                "description": "The absolute path to the file to read (relative paths are "
                "taken from the workspace root)",
            },
            "offset": {
                "type": "number",
                "minimum": 0,
                "description": "The 0-based line number to start reading from",
            },
            "limit": {
                "type": "number",
                "minimum": 1,
                "description": f"Maximum number of lines to read (default {DEFAULT_LINE_LIMIT})",
            },
        },
        "required": ["absolute_path"],
        "additionalProperties": False,
    }
    example = {"absolute_path": "/path/to/project/src/main.py"}

    def check(self, params: Mapping[str, Any]) -> str | None:
        """Offsets and limits are line counts: whole numbers."""
        for key in ("offset", "limit"):
            if key in params and not float(params[key]).is_integer():
                return f"{key}: expected a whole number of lines, got {params[key]}"
        return None

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The file read: a read waits for an earlier call in the reply that edits it."""
        return file_keys([ctx.workspace.resolve(params["absolute_path"], param="absolute_path")])

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Read {params.get('absolute_path')}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The content, preceded by Gemini CLI's truncation notice when cut."""
        raw = str(params["absolute_path"])
        path = ctx.workspace.resolve(raw, param="absolute_path")
        shown = ctx.workspace.display(path)
        offset = int(params.get("offset", 0))
        limit = int(params.get("limit", DEFAULT_LINE_LIMIT))
        snap = read_text(ctx, path, shown)
        w = text_window(
            snap.text, shown, size=snap.size, lossy=snap.lossy, offset=offset, limit=limit
        )
        content = w.text
        if w.truncated or w.shortened_lines:
            status = f"Showing lines {w.first_line}-{w.last_line} of {w.total_lines} total lines."
            action = "This is the end of the file."
            if w.last_line < w.total_lines:
                action = (
                    "To read more of the file, you can use the 'offset' and 'limit' parameters "
                    "in a subsequent 'read_file' call. For example, to read the next section of "
                    f"the file, use offset: {w.last_line}."
                )
            if w.shortened_lines:
                status += (
                    f" {w.shortened_lines} line(s) longer than {MAX_LINE_CHARS} characters"
                    " were shortened."
                )
            content = (
                "IMPORTANT: The file content has been truncated.\n"
                f"Status: {status}\nAction: {action}\n\n"
                f"--- FILE CONTENT (truncated) ---\n{w.text}"
            )
        display = (
            f"Read lines {w.first_line}-{w.last_line} of {w.total_lines} from {shown}"
            if w.truncated
            else ""
        )
        return ToolResult.ok(
            content,
            display=display or f"Read {shown}",
            data={"path": str(path), "lines": [w.first_line, w.last_line], "total": w.total_lines},
        )
