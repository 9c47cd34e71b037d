"""Writing files: whole-file writes, creations and appends of every profile.

The faces, each with its profile's names, parameters and result shape:
- agentxml `write_file(filePath, content)` and `append_file(filePath, content)`: the
  operation result string is `data` (and the text for the model); parent directories
  are created for new files.
- vecli (Gemini CLI) `write_file(file_path, content)`: Gemini's sentences, and its
  FileDiff display object (`file_diff`: fileDiff, fileName, originalContent, newContent).
- gateway `create_file(path, content)` → `{"ok": true, "path", "size", "text":
  "created P (N bytes)"}`, `tool_conflict` when the file exists; `update_file(path,
  content, mode)` → `{"ok": true, "path", "mode", "size", "text": "updated P with
  mode=M"}`, `tool_not_found` when it does not. `path` is echoed as the caller wrote
  it; `size` is the file's size in bytes after the call.

One implementation underneath: `fileio.plan_write` works the write out (the diff for
the approval), `save` refuses a file changed since the session read it and writes,
`appended` adds text in the file's own line endings. Paths are relative to the
workspace (absolute ones inside it are accepted).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.document_io import (
    WritePlan,
    commit,
    current,
    editable,
    plan_write,
    refuse_if_stale,
    with_file_endings,
)
from karyi.tools.builtin.mutating import MutatingTool
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, arg, param_class
from karyi.workspace.editor import PlannedWrite
from karyi.workspace.snapshots import Snapshot

FILE_PATH = "file path"
ABSOLUTE = "The absolute path to the file (relative paths are taken from the workspace root)"
PATH = "relative or absolute path"


@param_class
class AgentxmlWriteFileParams(ToolParams):
    """agentxml `write_file`'s parameters."""

    snake = False
    file_path: str = arg(description=FILE_PATH)
    content: str = arg(description="the file's new content")


@param_class
class AppendFileParams(ToolParams):
    """agentxml `append_file`'s parameters."""

    snake = False
    file_path: str = arg(description=FILE_PATH)
    content: str = arg(description="the text to append")


@param_class
class VecliWriteFileParams(ToolParams):
    """vecli `write_file`'s parameters."""

    file_path: str = arg(description=ABSOLUTE)
    content: str = arg(description="The content to write to the file.")


@param_class
class CreateFileParams(ToolParams):
    """gateway `create_file`'s parameters."""

    path: str = arg(description=PATH)
    content: str = arg(description="the file's content")


@param_class
class UpdateFileParams(ToolParams):
    """gateway `update_file`'s parameters."""

    path: str = arg(description=PATH)
    content: str = arg(description="the new content, or what to append")
    mode: Literal["overwrite", "append"] = arg(
        default="overwrite", description="overwrite (default) or append"
    )


W = TypeVar("W")


# -- the shared implementation ----------------------------------------------------------------


class WholeFileTool(MutatingTool[W]):
    """A tool that replaces a whole file's content: previews the write's diff."""

    def plan(self, params: Mapping[str, Any], ctx: ToolContext) -> WritePlan:
        """The write this call makes (subclasses say which text goes where)."""
        raise NotImplementedError

    def planned_writes(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        """See `MutatingTool.planned_writes`."""
        plan = self.plan(params, ctx)
        return [
            PlannedWrite(plan.path, plan.display, plan.base.text if plan.base else None, plan.text)
        ]

    def _plan_for(
        self,
        ctx: ToolContext,
        raw: str,
        param: str,
        text: str,
        *,
        merge: bool = True,
    ) -> WritePlan:
        path = ctx.workspace.resolve(raw, param=param)
        return plan_write(ctx, path, ctx.workspace.display(path), text, merge=merge)


def file_diff(plan_path: str, diff: str, old: str | None, new: str) -> dict[str, Any]:
    """Gemini CLI's FileDiff display object."""
    return {
        "fileDiff": diff,
        "fileName": os.path.basename(plan_path),
        "originalContent": old,
        "newContent": new,
    }


def save(
    ctx: ToolContext, plan: WritePlan, shown: str, *, make_parents: bool = True
) -> Snapshot | None:
    """Write a planned whole-file text; None when the file already holds it.

    Refused (tool_conflict) when the file changed since the session last read it.
    """
    refuse_if_stale(ctx, plan.path, shown, plan.base)
    if plan.base is not None and plan.base.text == plan.text:
        return None
    return commit(ctx, plan.path, shown, plan.text, plan.base, make_parents=make_parents)


def appended(existing: str, content: str) -> str:
    """`existing` followed by `content`, written in the file's own line endings."""
    return existing + with_file_endings(content, existing)


def _done(message: str, **metadata: Any) -> ToolResult:
    return ToolResult.ok(message, data=message, **metadata)


def _noted(text: str, plan: WritePlan) -> str:
    """The sentence, then what the model must know about elisions in its content."""
    return f"{text}\n{plan.note}" if plan.note else text


ELIDE_IN_WRITE = (
    " Over an existing file you may leave unchanged code out: a line `...` (or a comment "
    "such as `# ... existing code ...` or `// ... existing code ...`) keeps the file's lines "
    "between the lines you wrote around it, which must be copied exactly from the file; a "
    "merge that is not certain is refused. A new file is written as given."
)
"""What every whole-file write's description says about elisions."""


# -- the faces --------------------------------------------------------------------------------


class AgentxmlWriteFile(WholeFileTool[AgentxmlWriteFileParams]):
    """agentxml `write_file(filePath, content)`: create or replace a file."""

    name = "write_file"
    display_name = "Write file"
    description = (
        "Write content to a file, creating it (and missing parent directories) or replacing "
        "its whole content. Replacing a file you read earlier is refused if it changed since."
        + ELIDE_IN_WRITE
    )
    path_params = ("filePath",)
    example = {"filePath": "notes/todo.md", "content": "# TODO\n- write tests\n"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Write {self.args(params).file_path}"

    def plan(self, params: Mapping[str, Any], ctx: ToolContext) -> WritePlan:
        """See `WholeFileTool.plan`."""
        a = self.args(params)
        return self._plan_for(ctx, a.file_path, "filePath", a.content)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Created X (N bytes)` or `Overwrote X (N bytes)`."""
        plan = self.plan(params, ctx)
        src = self.args(params).file_path
        snap = save(ctx, plan, src)
        if snap is None:
            return _done(f"{src} already has this content; nothing was written")
        verb = "Created" if plan.created else "Overwrote"
        return _done(_noted(f"{verb} {src} ({snap.size} bytes)", plan), diff=plan.diff.to_json())


class AppendFile(MutatingTool[AppendFileParams]):
    """agentxml `append_file(filePath, content)`: add to the end (creating the file)."""

    name = "append_file"
    display_name = "Append to file"
    description = (
        "Append content to the end of a file, exactly as given (add a leading newline "
        "yourself if needed). A missing file is created."
    )
    path_params = ("filePath",)
    example = {"filePath": "CHANGELOG.md", "content": "- fixed the parser\n"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Append to {self.args(params).file_path}"

    def _texts(self, params: Mapping[str, Any], ctx: ToolContext) -> tuple[Any, Any, str]:
        src = self.args(params).file_path
        path = ctx.workspace.resolve(src, param="filePath")
        base = current(ctx, path, src, verb="appended to")
        if base is not None:
            editable(base, src)
        return path, base, appended(base.text if base else "", self.args(params).content)

    def planned_writes(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        """See `MutatingTool.planned_writes`."""
        path, base, new = self._texts(params, ctx)
        src = self.args(params).file_path
        return [PlannedWrite(path, src, base.text if base else None, new)]

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Appended N bytes to X (now M bytes)`."""
        src = self.args(params).file_path
        path, base, new = self._texts(params, ctx)
        snap = commit(ctx, path, src, new, base, make_parents=True)
        added = len(self.args(params).content.encode("utf-8"))
        verb = "Created" if base is None else "Appended to"
        return _done(f"{verb} {src}: {added} bytes appended (now {snap.size} bytes)")


class VecliWriteFile(WholeFileTool[VecliWriteFileParams]):
    """vecli (Gemini CLI) `write_file(file_path, content)`."""

    name = "write_file"
    display_name = "WriteFile"
    description = (
        "Writes content to a specified file in the local filesystem. Creates the file and "
        "any missing parent directories; replaces the content of an existing file (refused "
        "if the file changed since you last read it)." + ELIDE_IN_WRITE
    )
    path_params = ("file_path",)
    example = {"file_path": "/path/to/project/src/hello.py", "content": "print('hello')\n"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Write to {self.args(params).file_path}"

    def plan(self, params: Mapping[str, Any], ctx: ToolContext) -> WritePlan:
        """See `WholeFileTool.plan`."""
        a = self.args(params)
        return self._plan_for(ctx, a.file_path, "file_path", a.content)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Gemini's `Successfully created and wrote to new file: P.` or `... overwrote file: P.`"""
        plan = self.plan(params, ctx)
        save(ctx, plan, plan.display)
        text = (
            f"Successfully created and wrote to new file: {plan.path}."
            if plan.created
            else f"Successfully overwrote file: {plan.path}."
        )
        text = _noted(text, plan)
        old = plan.base.text if plan.base else None
        return ToolResult.ok(
            text,
            display=file_diff(str(plan.path), plan.diff.unified, old, plan.text),
            data={"path": str(plan.path), "created": plan.created, "diff": plan.diff.to_json()},
        )


class CreateFile(WholeFileTool[CreateFileParams]):
    """gateway `create_file(path, content)`: a new file; an existing one is refused."""

    name = "create_file"
    display_name = "Create file"
    description = (
        "Create a new file (only succeeds when the file does not exist yet); its content is "
        "written as given."
    )
    path_params = ("path",)
    example = {"path": "relative/path.txt", "content": "..."}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Create {self.args(params).path}"

    def plan(self, params: Mapping[str, Any], ctx: ToolContext) -> WritePlan:
        """See `WholeFileTool.plan`: refuses an existing file."""
        a = self.args(params)
        raw = a.path
        path = ctx.workspace.resolve(raw)
        if ctx.workspace.documents.exists(path):
            raise ToolFailure(ErrorCode.CONFLICT, f"{raw} already exists; use update_file")
        return self._plan_for(ctx, raw, "path", a.content)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The gateway's shape: ok, path, size, text."""
        plan = self.plan(params, ctx)
        raw = self.args(params).path
        snap = commit(ctx, plan.path, raw, plan.text, None, make_parents=True)
        shape: dict[str, Any] = {
            "ok": True,
            "path": raw,
            "size": snap.size,
            "text": f"created {raw} ({snap.size} bytes)",
        }
        if plan.note:
            shape["note"] = plan.note
        text = _noted(str(shape["text"]), plan)
        return ToolResult.ok(text, data=shape, display=f"Created `{raw}`")


class UpdateFile(WholeFileTool[UpdateFileParams]):
    """gateway `update_file(path, content, mode)`: overwrite or append to a file."""

    name = "update_file"
    display_name = "Update file"
    description = (
        "Modify an existing file: overwrite its content (default) or append to it. "
        "Overwriting a file you read earlier is refused if it changed since." + ELIDE_IN_WRITE
    )
    path_params = ("path",)
    example = {"path": "relative/path.txt", "content": "...", "mode": "overwrite"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        return f"Update {a.path} ({a.mode})"

    def plan(self, params: Mapping[str, Any], ctx: ToolContext) -> WritePlan:
        """See `WholeFileTool.plan`: the file must exist."""
        a = self.args(params)
        raw = a.path
        path = ctx.workspace.resolve(raw)
        if not ctx.workspace.documents.exists(path):
            raise ToolFailure(ErrorCode.NOT_FOUND, f"{raw}: no such file; use create_file")
        content = a.content
        if a.mode != "append":
            return self._plan_for(ctx, raw, "path", content)
        plan = self._plan_for(ctx, raw, "path", content, merge=False)
        if plan.base is not None:
            text = appended(plan.base.text, content)
            plan = self._plan_for(ctx, raw, "path", text, merge=False)
        return plan

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The gateway's shape: ok, path, mode, size, text."""
        plan = self.plan(params, ctx)
        a = self.args(params)
        raw = a.path
        mode = a.mode
        if mode == "overwrite":
            refuse_if_stale(ctx, plan.path, raw, plan.base)
        snap = commit(ctx, plan.path, raw, plan.text, plan.base)
        shape: dict[str, Any] = {
            "ok": True,
            "path": raw,
            "mode": mode,
            "size": snap.size,
            "text": f"updated {raw} with mode={mode}",
        }
        if plan.note:
            shape["note"] = plan.note
        text = _noted(str(shape["text"]), plan)
        return ToolResult.ok(text, data=shape, display=f"Updated `{raw}` ({mode})")
