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
from karyi.tools.typed import ToolParams, arg, param_class
from karyi.workspace.editor import PlannedWrite


@param_class
class InsertFileContentParams(ToolParams):
    """agentxml `insert_file_content`'s parameters."""

    snake = False
    file_path: str = arg(description=FILE_PATH)
    position: float = arg(minimum=0, description="insert position (character index, 0-based)")
    content: str = arg(description="the text to insert")


class InsertFileContent(MutatingTool[InsertFileContentParams]):
    """agentxml `insert_file_content(filePath, position, content)`, in characters."""

    name = "insert_file_content"
    display_name = "Insert into file"
    description = (
        "Insert content into a file at a character position (0 = the start; the file's "
        "length in characters = the end). The file must exist and must not have changed "
        "since you read it."
    )
    path_params = ("filePath",)
    example = {"filePath": "src/main.py", "position": 0, "content": "#!/usr/bin/env python3\n"}

    def check(self, params: Mapping[str, Any]) -> str | None:
        """A position is a whole number of characters."""
        position = self.args(params).position
        if not position.is_integer():
            return f"position: expected a whole character index, got {position}"
        return None

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        at = int(a.position) if a.position.is_integer() else a.position
        return f"Insert into {a.file_path} at position {at}"

    def _texts(self, params: Mapping[str, Any], ctx: ToolContext) -> tuple[Any, Any, str, int]:
        a = self.args(params)
        src = a.file_path
        path = ctx.workspace.resolve(src, param="filePath")
        base = current(ctx, path, src, verb="inserted into")
        if base is None:
            raise ToolFailure(ErrorCode.NOT_FOUND, f"{src}: no such file or directory")
        editable(base, src)
        pos = int(a.position)
        if pos > len(base.text):
            raise ToolFailure(
                ErrorCode.INVALID_TOOL_INPUT,
                f"position {pos} is past the end of {src}, which has {len(base.text)} characters",
            )
        content = with_file_endings(a.content, base.text)
        return path, base, base.text[:pos] + content + base.text[pos:], pos

    def planned_writes(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        """See `MutatingTool.planned_writes`."""
        path, base, new, _pos = self._texts(params, ctx)
        return [PlannedWrite(path, self.args(params).file_path, base.text, new)]

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Inserted N characters into X at position P (line L, column C)`."""
        a = self.args(params)
        src = a.file_path
        path, base, new, pos = self._texts(params, ctx)
        refuse_if_stale(ctx, path, src, base)
        commit(ctx, path, src, new, base)
        line = base.text.count("\n", 0, pos) + 1
        column = pos - (base.text.rfind("\n", 0, pos) + 1) + 1
        n = len(a.content)
        text = (
            f"Inserted {n} characters into {src} at position {pos} (line {line}, column {column})"
        )
        return ToolResult.ok(text, data=text)
