"""What every tool that changes files shares: confirm by default, show the diff, name
its files.

A subclass says which parameters are paths (`path_params`) and how to preview the
call (`preview`: the unified diff it would make). The approval prompt then carries
that diff, and the executor orders calls on the same file by the resource keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar, TypeVar

from karyi.core.errors import ToolFailure
from karyi.core.results import Permission
from karyi.tools.base import Confirmation
from karyi.tools.builtin.document_io import file_keys
from karyi.tools.context import ToolContext
from karyi.tools.typed import TypedTool
from karyi.workspace.editor import PlannedWrite

M = TypeVar("M")


class MutatingTool(TypedTool[M]):
    """A tool that changes files: `confirm` by default, with a diff to approve."""

    permission = Permission.CONFIRM
    changes_files = True
    path_params: ClassVar[tuple[str, ...]] = ()

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """`file:<absolute path>` for every path parameter."""
        return file_keys(
            ctx.workspace.resolve(params[p], param=p) for p in self.path_params if p in params
        )

    def planned_writes(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        """The text changes the call would make, file by file (none: not a text change)."""
        return []

    def preview(self, params: Mapping[str, Any], ctx: ToolContext) -> str | None:
        """The unified diff the call would make (None when there is no text diff)."""
        writes = self.planned_writes(params, ctx)
        return "".join(w.diff().unified for w in writes) if writes else None

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Confirmation:
        """The description, the diff and each file's before/after for an editor preview;
        a call that would fail says why instead."""
        title = self.describe(params)
        try:
            docs = ctx.workspace.documents
            writes = [
                replace(w, version=docs.buffer_version(w.path))
                for w in self.planned_writes(params, ctx)
            ]
            diff = self.preview(params, ctx)
        except ToolFailure as exc:
            return Confirmation(
                kind="edit", title=title, details=f"This call will fail: {exc.message}"
            )
        return Confirmation(kind="edit", title=title, diff=diff, files=tuple(writes))
