"""The shape every mutating tool shares: confirm by default, show the diff, name its files.

A subclass says which parameters are paths (`path_params`) and how to preview the
call (`preview`: the unified diff it would make). The approval prompt then carries
that diff, and the executor orders calls on the same file by the resource keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from karyi.tools.base import Confirmation, Permission, Tool, ToolContext
from karyi.tools.builtin.fileio import WritePlan, file_keys, plan_write
from karyi.tools.errors import ToolFailure


class MutatingTool(Tool):
    """A tool that changes files: `confirm` by default, with a diff to approve."""

    permission = Permission.CONFIRM
    changes_files = True
    path_params: ClassVar[tuple[str, ...]] = ()

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """`file:<absolute path>` for every path parameter."""
        return file_keys(
            ctx.workspace.resolve(params[p], param=p) for p in self.path_params if p in params
        )

    def preview(self, params: Mapping[str, Any], ctx: ToolContext) -> str | None:
        """The unified diff the call would make (None when there is no text diff)."""
        return None

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Confirmation:
        """The description and the diff; a call that would fail says why instead."""
        title = self.describe(params)
        try:
            diff = self.preview(params, ctx)
        except ToolFailure as exc:
            return Confirmation(
                kind="edit", title=title, details=f"This call will fail: {exc.message}"
            )
        return Confirmation(kind="edit", title=title, diff=diff)


class WholeFileTool(MutatingTool):
    """A tool that replaces a whole file's content: previews the write's diff."""

    def plan(self, params: Mapping[str, Any], ctx: ToolContext) -> WritePlan:
        """The write this call makes (subclasses say which text goes where)."""
        raise NotImplementedError

    def preview(self, params: Mapping[str, Any], ctx: ToolContext) -> str | None:
        """See `MutatingTool.preview`."""
        return self.plan(params, ctx).diff.unified

    def _plan_for(
        self, params: Mapping[str, Any], ctx: ToolContext, param: str, text: str
    ) -> WritePlan:
        raw = params[param]
        path = ctx.workspace.resolve(raw, param=param)
        return plan_write(ctx, path, ctx.workspace.display(path), text)
