"""The one-file `read_file` tools: agentxml's, vecli's (Gemini CLI) and the gateway's.

Each is a face over `window.read_file` with its profile's parameters and result shape:
- agentxml `read_file(filePath, offset, limit)`: lines 1-based; `data` is the content
  string, with a note when only part of the file is shown.
- vecli `read_file(absolute_path, offset, limit)`: lines 0-based; Gemini CLI's
  truncation notice, so prompts carried over from it keep working (relative paths are
  accepted as well as the absolute ones Gemini CLI insists on).
- gateway `read_file(path)`: `{"ok": true, "path", "size", "truncated", "content",
  "text"}`, `path` as the caller wrote it, `size` in bytes on disk, `truncated` when the
  file exceeds the read limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.results import ToolResult
from karyi.tools.builtin.read.window import read_file, read_resources
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class
from karyi.workspace.files import DEFAULT_LINE_LIMIT, MAX_LINE_CHARS

GATEWAY_READ_LIMIT = 1024 * 1024


@param_class
class ReadFileParams(ToolParams):
    """agentxml `read_file`'s parameters."""

    snake = False
    file_path: str = arg(description="file path")
    offset: int = arg(implied=1, minimum=1, description="first line (1-based)")
    limit: int = arg(implied=DEFAULT_LINE_LIMIT, minimum=1, description="number of lines")


@param_class
class VecliReadFileParams(ToolParams):
    """vecli `read_file`'s parameters."""

    absolute_path: str = arg(
        description="The absolute path to the file to read (relative paths are "
        "taken from the workspace root)"
    )
    offset: float = arg(
        implied=0.0, minimum=0, description="The 0-based line number to start reading from"
    )
    limit: float = arg(
        implied=float(DEFAULT_LINE_LIMIT),
        minimum=1,
        description=f"Maximum number of lines to read (default {DEFAULT_LINE_LIMIT})",
    )


@param_class
class GatewayReadFileParams(ToolParams):
    """gateway `read_file`'s parameters."""

    path: str = arg(description="relative or absolute path")


class ReadFile(TypedTool[ReadFileParams]):
    """agentxml `read_file(filePath)`."""

    plan_safe = True

    name = "read_file"
    display_name = "Read file"
    description = (
        f"Read a text file's content. Shows up to {DEFAULT_LINE_LIMIT} lines; "
        "offset/limit (1-based lines) read further."
    )
    example = {"filePath": "info.txt"}

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """See `window.read_resources`."""
        return read_resources(ctx, self.args(params).file_path, "filePath")

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Read {self.args(params).file_path}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The content string, with a note when only part of the file is shown."""
        a = self.args(params)
        src = a.file_path
        read = read_file(ctx, ctx.workspace.resolve(src, param="filePath"), src)
        w = read.window(a.offset - 1, a.limit)
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


class VecliReadFile(TypedTool[VecliReadFileParams]):
    """vecli (Gemini CLI) `read_file(absolute_path, offset, limit)`."""

    plan_safe = True

    name = "read_file"
    display_name = "ReadFile"
    description = (
        "Reads and returns the content of a specified file. If the file is large, the "
        "content will be truncated; the response says so and how to read more using "
        "'offset' and 'limit'. Binary files are refused."
    )
    example = {"absolute_path": "/path/to/project/src/main.py"}

    def check(self, params: Mapping[str, Any]) -> str | None:
        """Offsets and limits are line counts: whole numbers."""
        a = self.args(params)
        for key, value in (("offset", a.offset), ("limit", a.limit)):
            if not value.is_integer():
                return f"{key}: expected a whole number of lines, got {value}"
        return None

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """See `window.read_resources`."""
        return read_resources(ctx, self.args(params).absolute_path, "absolute_path")

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Read {self.args(params).absolute_path}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The content, preceded by Gemini CLI's truncation notice when cut."""
        a = self.args(params)
        path = ctx.workspace.resolve(a.absolute_path, param="absolute_path")
        shown = ctx.workspace.display(path)
        offset = int(a.offset)
        limit = int(a.limit)
        w = read_file(ctx, path, shown).window(offset, limit)
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


class GatewayReadFile(TypedTool[GatewayReadFileParams]):
    """gateway `read_file(path)`: a text file inside the allowed roots."""

    plan_safe = True

    name = "read_file"
    display_name = "Read file"
    description = "Read a text file in the repository."
    example = {"path": "docs/contracts.md"}

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """See `window.read_resources`."""
        return read_resources(ctx, self.args(params).path, "path")

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Read {self.args(params).path}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The file's text, cut at the read limit with `truncated: true`."""
        raw = self.args(params).path
        snap = read_file(ctx, ctx.workspace.resolve(raw), raw).snap
        size = snap.size
        text = snap.text
        truncated = size > GATEWAY_READ_LIMIT or snap.truncated
        if truncated:
            data = text.encode("utf-8", errors="surrogatepass")[:GATEWAY_READ_LIMIT]
            text = data.decode("utf-8", errors="ignore")  # a character cut at the limit
        shape = {
            "ok": True,
            "path": raw,
            "size": size,
            "truncated": truncated,
            "content": text,
            "text": text,
        }
        return ToolResult.ok(text, data=shape, display=f"Read `{raw}` ({size} bytes)")
