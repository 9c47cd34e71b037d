"""Seed 004's gateway `read_file(path)` with the seed's exact success shape.

`{"ok": true, "path", "size", "truncated", "content", "text"}`: `path` as the caller
wrote it, `size` in bytes on disk, `truncated` when the file exceeds the read limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.results import ToolResult
from karyi.tools.base import Tool
from karyi.tools.builtin.fileio import file_keys, read_text
from karyi.tools.context import ToolContext

GATEWAY_READ_LIMIT = 1024 * 1024


class GatewayReadFile(Tool):
    """Reads a text file inside the allowed roots."""

    name = "read_file"
    display_name = "Read file"
    description = "Read a text file in the repository."
    parameters = {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "relative or absolute path"}},
        "required": ["path"],
        "additionalProperties": False,
    }
    example = {"path": "docs/contracts.md"}

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The file read: a read waits for an earlier call in the reply that edits it."""
        return file_keys([ctx.workspace.resolve(params["path"], param="path")])

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Read {params.get('path')}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The file's text, cut at the read limit with `truncated: true`."""
        raw = str(params["path"])
        path = ctx.workspace.resolve(raw)
        snap = read_text(ctx, path, raw)
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
