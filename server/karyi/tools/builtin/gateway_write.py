"""Seed 004's gateway `create_file` and `update_file`, with the seed's exact success shapes.

`create_file` → `{"ok": true, "path", "size", "text": "created P (N bytes)"}`, and
`tool_conflict` when the file exists. `update_file` → `{"ok": true, "path", "mode",
"size", "text": "updated P with mode=M"}`, `tool_not_found` when it does not. `path`
is echoed as the caller wrote it; `size` is the file's size in bytes after the call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.fileio import WritePlan, commit, refuse_if_stale, with_file_endings
from karyi.tools.builtin.mutating import WholeFileTool
from karyi.tools.context import ToolContext

PATH = {"type": "string", "description": "relative or absolute path"}


class CreateFile(WholeFileTool):
    """Creates a new file; refuses an existing one."""

    name = "create_file"
    display_name = "Create file"
    description = "Create a new file (only succeeds when the file does not exist yet)."
    parameters = {
        "type": "object",
        "properties": {
            "path": PATH,
            "content": {"type": "string", "description": "the file's content"},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }
    path_params = ("path",)
    example = {"path": "relative/path.txt", "content": "..."}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Create {params.get('path')}"

    def plan(self, params: Mapping[str, Any], ctx: ToolContext) -> WritePlan:
        """See `WholeFileTool.plan`: refuses an existing file."""
        raw = str(params["path"])
        path = ctx.workspace.resolve(raw)
        if ctx.workspace.documents.exists(path):
            raise ToolFailure(ErrorCode.CONFLICT, f"{raw} already exists; use update_file")
        return self._plan_for(params, ctx, "path", str(params["content"]))

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The seed's shape: ok, path, size, text."""
        plan = self.plan(params, ctx)
        raw = str(params["path"])
        snap = commit(ctx, plan.path, raw, plan.text, None, make_parents=True)
        shape = {
            "ok": True,
            "path": raw,
            "size": snap.size,
            "text": f"created {raw} ({snap.size} bytes)",
        }
        return ToolResult.ok(str(shape["text"]), data=shape, display=f"Created `{raw}`")


class UpdateFile(WholeFileTool):
    """Overwrites or appends to an existing file."""

    name = "update_file"
    display_name = "Update file"
    description = (
        "Modify an existing file: overwrite its content (default) or append to it. "
        "Overwriting a file you read earlier is refused if it changed since."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": PATH,
            "content": {"type": "string", "description": "the new content, or what to append"},
            "mode": {
                "type": "string",
                "enum": ["overwrite", "append"],
                "default": "overwrite",
                "description": "overwrite (default) or append",
            },
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }
    path_params = ("path",)
    example = {"path": "relative/path.txt", "content": "...", "mode": "overwrite"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Update {params.get('path')} ({params.get('mode', 'overwrite')})"

    def plan(self, params: Mapping[str, Any], ctx: ToolContext) -> WritePlan:
        """See `WholeFileTool.plan`: the file must exist."""
        raw = str(params["path"])
        path = ctx.workspace.resolve(raw)
        if not ctx.workspace.documents.exists(path):
            raise ToolFailure(ErrorCode.NOT_FOUND, f"{raw}: no such file; use create_file")
        content = str(params["content"])
        plan = self._plan_for(params, ctx, "path", content)
        if params.get("mode", "overwrite") == "append" and plan.base is not None:
            old = plan.base.text
            plan = self._plan_for(params, ctx, "path", old + with_file_endings(content, old))
        return plan

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The seed's shape: ok, path, mode, size, text."""
        plan = self.plan(params, ctx)
        raw = str(params["path"])
        mode = str(params.get("mode", "overwrite"))
        if mode == "overwrite":
            refuse_if_stale(ctx, plan.path, raw, plan.base)
        snap = commit(ctx, plan.path, raw, plan.text, plan.base)
        shape = {
            "ok": True,
            "path": raw,
            "mode": mode,
            "size": snap.size,
            "text": f"updated {raw} with mode={mode}",
        }
        return ToolResult.ok(str(shape["text"]), data=shape, display=f"Updated `{raw}` ({mode})")
