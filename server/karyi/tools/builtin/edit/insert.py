"""agentxml `insert_file_content`: text inserted into a file at a character position.

The file must exist and must not have changed since the session read it; the inserted
text takes the file's own line endings. The operation result string is `data`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.document_io import (
    commit,
    current,
    editable,
    refuse_if_stale,
    with_file_endings,
)
from karyi.tools.builtin.mutating import MutatingTool
from karyi.tools.builtin.write import FILE_PATH
from karyi.tools.context import ToolContext
from karyi.workspace.editor import PlannedWrite


class InsertFileContent(MutatingTool):
    """agentxml `insert_file_content(filePath, position, content)`, in characters."""

    name = "insert_file_content"
    display_name = "Insert into file"
    description = (
        "Insert content into a file at a character position (0 = the start; the file's "
        "length in characters = the end). The file must exist and must not have changed "
        "since you read it."
    )
    parameters = {
        "type": "object",
        "properties": {
            "filePath": FILE_PATH,
            "position": {
                "type": "number",
                "minimum": 0,
                "description": "insert position (character index, 0-based)",
            },
            "content": {"type": "string", "description": "the text to insert"},
        },
        "required": ["filePath", "position", "content"],
        "additionalProperties": False,
    }
    path_params = ("filePath",)
    example = {"filePath": "src/main.py", "position": 0, "content": "#!/usr/bin/env python3\n"}

    def check(self, params: Mapping[str, Any]) -> str | None:
        """A position is a whole number of characters."""
        if not float(params["position"]).is_integer():
            return f"position: expected a whole character index, got {params['position']}"
        return None

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Insert into {params.get('filePath')} at position {params.get('position')}"

    def _texts(self, params: Mapping[str, Any], ctx: ToolContext) -> tuple[Any, Any, str, int]:
        src = str(params["filePath"])
        path = ctx.workspace.resolve(src, param="filePath")
        base = current(ctx, path, src, verb="inserted into")
        if base is None:
            raise ToolFailure(ErrorCode.NOT_FOUND, f"{src}: no such file or directory")
        editable(base, src)
        pos = int(params["position"])
        if pos > len(base.text):
            raise ToolFailure(
                ErrorCode.INVALID_TOOL_INPUT,
                f"position {pos} is past the end of {src}, which has {len(base.text)} characters",
            )
        content = with_file_endings(str(params["content"]), base.text)
        return path, base, base.text[:pos] + content + base.text[pos:], pos

    def planned_writes(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        """See `MutatingTool.planned_writes`."""
        path, base, new, _pos = self._texts(params, ctx)
        return [PlannedWrite(path, str(params["filePath"]), base.text, new)]

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Inserted N characters into X at position P (line L, column C)`."""
        src = str(params["filePath"])
        path, base, new, pos = self._texts(params, ctx)
        refuse_if_stale(ctx, path, src, base)
        commit(ctx, path, src, new, base)
        line = base.text.count("\n", 0, pos) + 1
        column = pos - (base.text.rfind("\n", 0, pos) + 1) + 1
        n = len(str(params["content"]))
        text = (
            f"Inserted {n} characters into {src} at position {pos} (line {line}, column {column})"
        )
        return ToolResult.ok(text, data=text)
