"""Seed 001's content tools: `write_file`, `replace_file_content`, `append_file`,
`insert_file_content`.

The seed says each returns an operation result string: that string is `data` (and
the text for the model). Paths are relative to the workspace (absolute ones inside it
are accepted); parent directories are created for new files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.edit.plan import apply_plan, plan_edit
from karyi.tools.builtin.fileio import (
    WritePlan,
    commit,
    current,
    editable,
    refuse_if_stale,
    with_file_endings,
)
from karyi.tools.builtin.mutating import MutatingTool, WholeFileTool
from karyi.tools.context import ToolContext
from karyi.workspace.editor import PlannedWrite
from karyi.workspace.edits import Pair

FILE_PATH = {"type": "string", "description": "file path"}


def _done(message: str, **metadata: Any) -> ToolResult:
    return ToolResult.ok(message, data=message, **metadata)


class WriteFileA(WholeFileTool):
    """Seed 001 `write_file(filePath, content)`: create or replace a file."""

    name = "write_file"
    display_name = "Write file"
    description = (
        "Write content to a file, creating it (and missing parent directories) or replacing "
        "its whole content. Replacing a file you read earlier is refused if it changed since."
    )
    parameters = {
        "type": "object",
        "properties": {
            "filePath": FILE_PATH,
            "content": {"type": "string", "description": "the file's new content"},
        },
        "required": ["filePath", "content"],
        "additionalProperties": False,
    }
    path_params = ("filePath",)
    example = {"filePath": "notes/todo.md", "content": "# TODO\n- write tests\n"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Write {params.get('filePath')}"

    def plan(self, params: Mapping[str, Any], ctx: ToolContext) -> WritePlan:
        """See `WholeFileTool.plan`."""
        return self._plan_for(params, ctx, "filePath", str(params["content"]))

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Created X (N bytes)` or `Overwrote X (N bytes)`."""
        plan = self.plan(params, ctx)
        src = str(params["filePath"])
        refuse_if_stale(ctx, plan.path, src, plan.base)
        if plan.base is not None and plan.base.text == plan.text:
            return _done(f"{src} already has this content; nothing was written")
        snap = commit(ctx, plan.path, src, plan.text, plan.base, make_parents=True)
        verb = "Created" if plan.created else "Overwrote"
        return _done(f"{verb} {src} ({snap.size} bytes)", diff=plan.diff.to_json())


class ReplaceFileContent(MutatingTool):
    """Seed 001 `replace_file_content(filePath, oldContent, newContent)`."""

    name = "replace_file_content"
    display_name = "Replace in file"
    description = (
        "Replace one occurrence of oldContent in a file with newContent. oldContent must be "
        "copied exactly and match exactly one place (add surrounding lines if needed); small "
        "whitespace or indentation slips are forgiven and reported."
    )
    parameters = {
        "type": "object",
        "properties": {
            "filePath": FILE_PATH,
            "oldContent": {"type": "string", "description": "the text to replace"},
            "newContent": {"type": "string", "description": "the text to put in its place"},
        },
        "required": ["filePath", "oldContent", "newContent"],
        "additionalProperties": False,
    }
    path_params = ("filePath",)
    example = {"filePath": "src/app.js", "oldContent": "port = 3000", "newContent": "port = 8080"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Replace text in {params.get('filePath')}"

    def _plan(self, params: Mapping[str, Any], ctx: ToolContext) -> Any:
        path = ctx.workspace.resolve(params["filePath"], param="filePath")
        pair = Pair(str(params["oldContent"]), str(params["newContent"]))
        return plan_edit(ctx, path, str(params["filePath"]), [pair])

    def planned_writes(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        """See `MutatingTool.planned_writes`."""
        plan = self._plan(params, ctx)
        before = plan.base.text if plan.base else None
        return [PlannedWrite(plan.path, str(params["filePath"]), before, plan.outcome.text)]

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Replaced 1 occurrence in X (line N, exact match)`."""
        plan = self._plan(params, ctx)
        apply_plan(ctx, plan)
        src = str(params["filePath"])
        report = plan.outcome.pairs[0]
        if plan.base is None:
            message = f"Created {src}"
        elif not plan.changed:
            message = f"No change to {src}: " + report.describe().split(": ", 1)[1]
        else:
            message = f"Replaced 1 occurrence in {src} ({report.describe().split(': ', 1)[1]})"
        if note := plan.stale_note():
            message += f"\n{note}"
        return _done(message, diff=plan.outcome.diff.to_json())


class AppendFile(MutatingTool):
    """Seed 001 `append_file(filePath, content)`: add to the end (creating the file)."""

    name = "append_file"
    display_name = "Append to file"
    description = (
        "Append content to the end of a file, exactly as given (add a leading newline "
        "yourself if needed). A missing file is created."
    )
    parameters = {
        "type": "object",
        "properties": {
            "filePath": FILE_PATH,
            "content": {"type": "string", "description": "the text to append"},
        },
        "required": ["filePath", "content"],
        "additionalProperties": False,
    }
    path_params = ("filePath",)
    example = {"filePath": "CHANGELOG.md", "content": "- fixed the parser\n"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Append to {params.get('filePath')}"

    def _texts(self, params: Mapping[str, Any], ctx: ToolContext) -> tuple[Any, Any, str]:
        src = str(params["filePath"])
        path = ctx.workspace.resolve(src, param="filePath")
        base = current(ctx, path, src, verb="appended to")
        if base is not None:
            editable(base, src)
        old = base.text if base else ""
        return path, base, old + with_file_endings(str(params["content"]), old)

    def planned_writes(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        """See `MutatingTool.planned_writes`."""
        path, base, new = self._texts(params, ctx)
        return [PlannedWrite(path, str(params["filePath"]), base.text if base else None, new)]

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Appended N bytes to X (now M bytes)`."""
        src = str(params["filePath"])
        path, base, new = self._texts(params, ctx)
        snap = commit(ctx, path, src, new, base, make_parents=True)
        added = len(str(params["content"]).encode("utf-8"))
        verb = "Created" if base is None else "Appended to"
        return _done(f"{verb} {src}: {added} bytes appended (now {snap.size} bytes)")


class InsertFileContent(MutatingTool):
    """Seed 001 `insert_file_content(filePath, position, content)`, position in characters."""

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
        return _done(
            f"Inserted {n} characters into {src} at position {pos} (line {line}, column {column})"
        )
