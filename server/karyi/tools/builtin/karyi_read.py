"""ToolsXML `<read>` (seed 000): files and directory listings in one call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.protocol.xmltext import start_tag
from karyi.tools.base import Tool, ToolContext, ToolResult
from karyi.tools.errors import ToolFailure
from karyi.workspace.files import DEFAULT_LINE_LIMIT, human_size, list_dir, read_window

FILE_ITEM = {
    "type": "object",
    "properties": {
        "src": {"type": "string", "description": "file or directory path"},
        "offset": {"type": "integer", "minimum": 1, "description": "first line to show (1-based)"},
        "limit": {"type": "integer", "minimum": 1, "description": "how many lines to show"},
    },
    "required": ["src"],
    "additionalProperties": False,
}


def listing_lines(entries: list[Any]) -> list[str]:
    """`name/` for directories, `name  (size)` for files."""
    return [f"{e.name}/" if e.is_dir else f"{e.name}  ({human_size(e.size)})" for e in entries]


class ReadTool(Tool):
    """Reads files and lists directories; several of each in one call."""

    name = "read"
    display_name = "Read"
    description = (
        "Read files, or list a directory when src is a directory. Shows up to "
        f"{DEFAULT_LINE_LIMIT} lines per file; use offset/limit (1-based lines) for more."
    )
    parameters = {
        "type": "object",
        "properties": {"files": {"type": "array", "items": FILE_ITEM, "minItems": 1}},
        "required": ["files"],
        "additionalProperties": False,
    }
    example = {"files": [{"src": "package.json"}, {"src": "src/"}]}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return "Read " + ", ".join(str(f.get("src")) for f in params.get("files", []))

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Each file or directory in its own section; a failing one does not hide the rest."""
        sections: list[str] = []
        failures: list[tuple[str, str]] = []
        for item in params["files"]:
            src = str(item["src"])
            try:
                sections.append(self._one(item, ctx))
            except ToolFailure as exc:
                failures.append((exc.code, exc.message))
                sections.append(
                    start_tag("file", {"src": src, "error": exc.code}) + exc.message + "</file>"
                )
        text = "\n".join(sections)
        shown = len(params["files"]) - len(failures)
        display = f"Read {shown} of {len(params['files'])} path(s)"
        if failures:
            code, message = failures[0]
            return ToolResult.fail(code, message, llm_content=text, display=display)
        return ToolResult.ok(text, display=display)

    def _one(self, item: Mapping[str, Any], ctx: ToolContext) -> str:
        src = str(item["src"])
        path = ctx.workspace.resolve(src, param="src")
        if path.is_dir():
            entries, ignored = list_dir(path, src, ignore=ctx.workspace.gitignore)
            lines = listing_lines(entries)
            if ignored:
                lines.append(f"({ignored} git-ignored entries not shown)")
            attrs = {"src": src, "entries": str(len(entries))}
            return start_tag("dir", attrs) + "\n" + "\n".join(lines) + "\n</dir>"
        offset = int(item.get("offset", 1)) - 1
        limit = int(item.get("limit", DEFAULT_LINE_LIMIT))
        w = read_window(path, src, offset=offset, limit=limit)
        attrs = {"src": src, "lines": f"{w.first_line}-{w.last_line}", "total": str(w.total_lines)}
        notes: list[str] = []
        if w.truncated:
            notes.append(
                f"[showing lines {w.first_line}-{w.last_line} of {w.total_lines}; "
                f'read more with <file src="{src}" offset="{w.last_line + 1}"/>]'
                if w.last_line < w.total_lines
                else f"[showing lines {w.first_line}-{w.last_line} of {w.total_lines}]"
            )
        if w.shortened_lines:
            notes.append(f"[{w.shortened_lines} long line(s) were cut at 2000 characters]")
        if w.lossy:
            notes.append("[the file is not valid UTF-8; undecodable bytes are shown as \ufffd]")
        body = w.text if w.text.endswith("\n") or not w.text else w.text + "\n"
        tail = "\n".join(notes) + "\n" if notes else ""
        return start_tag("file", attrs) + "\n" + body + tail + "</file>"
