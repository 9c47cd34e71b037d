"""File and directory operations (agentxml): `delete_file`, `copy_file`, `move_file`,
`create_directory`, `delete_directory`, `get_file_info`.

Each returns the profile's operation result string as `data` (`get_file_info`: the
info object). Nothing is ever overwritten: a copy or move onto an existing path is
refused (`tool_conflict`), and a non-empty directory is deleted only with
`recursive: true`. The work itself is `workspace.file_operations`, through the document store.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.document_io import current, file_keys, store
from karyi.tools.builtin.mutating import MutatingTool
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class
from karyi.workspace import file_operations
from karyi.workspace.diffs import diff_texts
from karyi.workspace.files import file_info


@param_class
class DeleteFileParams(ToolParams):
    """agentxml `delete_file`'s parameters."""

    snake = False
    file_path: str = arg(description="the file to delete")


@param_class
class SourceTargetParams(ToolParams):
    """agentxml `copy_file`'s and `move_file`'s parameters."""

    snake = False
    source_path: str = arg(description="the existing path")
    target_path: str = arg(description="the new path (an existing directory: into it, same name)")


@param_class
class CreateDirectoryParams(ToolParams):
    """agentxml `create_directory`'s parameters."""

    snake = False
    dir_path: str = arg(description="the directory to create")


@param_class
class DeleteDirectoryParams(ToolParams):
    """agentxml `delete_directory`'s parameters."""

    snake = False
    dir_path: str = arg(description="the directory to delete")
    recursive: bool = arg(
        default=False, description="also delete everything inside (default false)"
    )


@param_class
class GetFileInfoParams(ToolParams):
    """agentxml `get_file_info`'s parameters."""

    snake = False
    file_path: str = arg(description="file path")


def _done(message: str) -> ToolResult:
    return ToolResult.ok(message, data=message)


class DeleteFile(MutatingTool[DeleteFileParams]):
    """agentxml `delete_file(filePath)`."""

    name = "delete_file"
    display_name = "Delete file"
    description = "Delete a file (not a directory: use delete_directory for those)."
    path_params = ("filePath",)
    example = {"filePath": "tmp/old.log"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Delete {self.args(params).file_path}"

    def preview(self, params: Mapping[str, Any], ctx: ToolContext) -> str | None:
        """The removal as a diff (for text files)."""
        src = self.args(params).file_path
        path = ctx.workspace.resolve_entry(src, param="filePath")
        if path.is_symlink():
            return None  # only the link goes; its target's text is not what changes
        file_operations.require_regular(
            path, src, dir_hint="use delete_directory to remove a directory"
        )
        try:
            base = current(ctx, path, src)
        except ToolFailure:
            return None  # binary or unreadable: nothing to show as text
        return diff_texts(base.text if base else None, None, path=src).unified

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Deleted X (N bytes)`."""
        src = self.args(params).file_path
        path = ctx.workspace.resolve_entry(src, param="filePath")
        if path.is_symlink():
            file_operations.delete_file(store(ctx), path, src)
            return _done(f"Deleted the symlink {src} (what it pointed to is untouched)")
        size = file_operations.delete_file(store(ctx), path, src)
        store(ctx).reads.forget_path(ctx.session_id, path)
        return _done(f"Deleted {src} ({size} bytes)")


class _SourceTarget(MutatingTool[SourceTargetParams]):
    """Shared by copy and move: two paths, the target never overwritten."""

    path_params = ("sourcePath", "targetPath")
    follows_source = True  # a copy copies what a symlink points to; a move moves the link
    example = {"sourcePath": "src/old.py", "targetPath": "src/new.py"}

    def _paths(self, params: Mapping[str, Any], ctx: ToolContext) -> tuple[Any, Any, str]:
        resolve = ctx.workspace.resolve if self.follows_source else ctx.workspace.resolve_entry
        a = self.args(params)
        source = resolve(a.source_path, param="sourcePath")
        target_raw = ctx.workspace.resolve(a.target_path, param="targetPath")
        shown = a.target_path
        target = file_operations.target_path(source, target_raw, shown)
        return source, target, ctx.workspace.display(target)

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """Both paths (and the final target inside a directory)."""
        keys = set(super().resources(params, ctx))
        with contextlib.suppress(ToolFailure):
            keys |= file_keys([self._paths(params, ctx)[1]])
        return frozenset(keys)


class CopyFile(_SourceTarget):
    """agentxml `copy_file(sourcePath, targetPath)`."""

    name = "copy_file"
    display_name = "Copy file"
    description = (
        "Copy a file to a new path (into a directory when targetPath is one). An existing "
        "target is never overwritten."
    )

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        return f"Copy {a.source_path} to {a.target_path}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Copied A to B (N bytes)`."""
        source, target, shown = self._paths(params, ctx)
        src = self.args(params).source_path
        file_operations.require_regular(source, src, dir_hint="only files can be copied")
        size = file_operations.copy_file(store(ctx), source, target, shown)
        return _done(f"Copied {src} to {shown} ({size} bytes)")


class MoveFile(_SourceTarget):
    """agentxml `move_file(sourcePath, targetPath)` (files and directories)."""

    name = "move_file"
    follows_source = False
    display_name = "Move file"
    description = (
        "Move or rename a file or directory (into a directory when targetPath is one). An "
        "existing target is never overwritten."
    )

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        return f"Move {a.source_path} to {a.target_path}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Moved A to B`."""
        source, target, shown = self._paths(params, ctx)
        src = self.args(params).source_path
        file_operations.move_path(store(ctx), source, target, src)
        store(ctx).reads.forget_path(ctx.session_id, source)
        return _done(f"Moved {src} to {shown}")


class CreateDirectory(MutatingTool[CreateDirectoryParams]):
    """agentxml `create_directory(dirPath)` (parents too, like mkdir -p)."""

    name = "create_directory"
    display_name = "Create directory"
    description = "Create a directory and any missing parents. An existing directory is fine."
    path_params = ("dirPath",)
    example = {"dirPath": "src/components"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Create directory {self.args(params).dir_path}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Created directory X` or `Directory X already exists`."""
        src = self.args(params).dir_path
        path = ctx.workspace.resolve(src, param="dirPath")
        if file_operations.make_dir(path, src):
            return _done(f"Created directory {src}")
        return _done(f"Directory {src} already exists")


class DeleteDirectory(MutatingTool[DeleteDirectoryParams]):
    """agentxml `delete_directory(dirPath, recursive=false)`."""

    name = "delete_directory"
    display_name = "Delete directory"
    description = (
        "Delete a directory. A non-empty directory is deleted only with recursive: true, "
        "and then with everything in it."
    )
    path_params = ("dirPath",)
    example = {"dirPath": "build", "recursive": True}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        how = " and everything in it" if a.recursive else ""
        return f"Delete directory {a.dir_path}{how}"

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Any:
        """What the directory holds, so the user knows what goes."""
        base = super().confirmation(params, ctx)
        try:
            path = ctx.workspace.resolve_entry(self.args(params).dir_path, param="dirPath")
            held = (
                file_operations.count_tree(path)
                if path.is_dir() and not path.is_symlink()
                else None
            )
        except ToolFailure:
            held = None
        if held is None or base.details:
            return base
        return type(base)(kind=base.kind, title=base.title, details=f"It holds {held}.")

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Deleted directory X (N files, M directories)`."""
        a = self.args(params)
        src = a.dir_path
        path = ctx.workspace.resolve_entry(src, param="dirPath")
        held = file_operations.remove_dir(
            store(ctx),
            path,
            src,
            recursive=a.recursive,
            roots=ctx.workspace.policy.roots,
        )
        if held.files or held.dirs:
            return _done(f"Deleted directory {src} and its {held}")
        return _done(f"Deleted empty directory {src}")


class GetFileInfo(TypedTool[GetFileInfoParams]):
    """agentxml `get_file_info(filePath)`."""

    plan_safe = True

    name = "get_file_info"
    display_name = "File info"
    description = "Get a file's or directory's details: type, size, times, permissions."
    example = {"filePath": "package.json"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Get info on {self.args(params).file_path}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The info object (`data`), also as JSON text for the model."""
        src = self.args(params).file_path
        info = file_info(ctx.workspace.resolve(src, param="filePath"), src)
        return ToolResult.ok(
            json.dumps(info, ensure_ascii=False, indent=2), data=info, display=f"Info on `{src}`"
        )
