"""`rename`: a symbol renamed in every file, through the same review and write as `edit`.

The language server works out the edit (`navigation/renames.py`: every reference, the
stub and the module both, `__all__` entries); `prepare` asks it before the user is, so
the approval shows the diff of every file with per-hunk Accept/Reject, and `execute`
writes the files through the document store like `edit` does: the user's own answer per
file (`ctx.overrides`), files open in the editor handed to it, the call's writes
all-or-nothing (every file is checked before any is written; the write-ahead journal
covers a crash) (docs/tools.md#rename).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.document_io import commit, current, editable, file_keys
from karyi.tools.builtin.mutating import MutatingTool
from karyi.tools.builtin.navigation.common import (
    SymbolParams,
    check_symbol,
    find_target,
    server_faults,
)
from karyi.tools.context import ToolContext
from karyi.tools.typed import arg, param_class
from karyi.workspace.diffs import compact
from karyi.workspace.editor import PlannedWrite

NAME = r"^[A-Za-z_$][\w$]*$"
KEEP = 32
"""Renames worked out and kept for their calls (a rejected call's is dropped later)."""


@param_class
class RenameParams(SymbolParams):
    """`rename`'s parameters: the symbol's, and its new name."""

    new_name: str = arg(pattern=NAME, description="the new name (an identifier)")


class Rename(MutatingTool[RenameParams]):
    """Renames a symbol everywhere it is used, as the editor's Rename Symbol does."""

    name = "rename"
    display_name = "Rename"
    description = (
        "Rename a symbol everywhere, as the editor's Rename Symbol does: its declarations "
        "(a module and its stub both), every reference in every file, `__all__` entries; "
        "never a comment or another thing of the same name. Give its name "
        "(`Message.get_payload`) or a `path` and `line`, and `new_name`. The user reviews "
        "every file's change; all files are written or none."
    )
    example = {"symbol": "utils.formatdate", "new_name": "format_date"}

    def __init__(self) -> None:
        self._prepared: dict[str, list[PlannedWrite] | ToolFailure] = {}

    def check(self, params: Mapping[str, Any]) -> str | None:
        """A symbol, or a path and a line."""
        a = self.args(params)
        return check_symbol(a.symbol, a.path, a.line)

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        what = a.symbol or f"{a.path}:{a.line}"
        return f"Rename {what} to {a.new_name}"

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """The files it changes are known only once the server is asked: it runs after
        the calls before it that change files, and those after it wait."""
        return True

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The files of the worked-out edit (before `prepare`: none known)."""
        found = self._prepared.get(_key(params, ctx))
        return file_keys(w.path for w in found) if isinstance(found, list) else frozenset()

    async def prepare(self, params: Mapping[str, Any], ctx: ToolContext) -> None:
        """Ask the language server for the edit, once per call."""
        key = _key(params, ctx)
        if key in self._prepared:
            return
        while len(self._prepared) >= KEEP:  # calls that were never run (rejected)
            self._prepared.pop(next(iter(self._prepared)))
        try:
            self._prepared[key] = await self._work_out(params, ctx)
        except ToolFailure as exc:
            self._prepared[key] = exc

    def planned_writes(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        """Every file's change, as `prepare` worked it out."""
        found = self._prepared.get(_key(params, ctx))
        if found is None:
            raise ToolFailure(ErrorCode.TOOL_ERROR, "the rename was not worked out yet")
        if isinstance(found, ToolFailure):
            raise found
        return found

    async def _work_out(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        from karyi.navigation.renames import RenameRefused, rename_everywhere, texts_after

        a = self.args(params)
        async with server_faults("rename"):
            target = await find_target(ctx, a.symbol, a.path, a.line, a.column)
            try:
                edits = await rename_everywhere(target.server, target.place, a.new_name)
            except RenameRefused as exc:
                raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, str(exc)) from None
        befores: dict[Path, str] = {}
        for path in edits:
            ctx.workspace.resolve(str(path))  # the path policy: no file outside the workspace
            snap = current(ctx, path, ctx.workspace.display(path))
            if snap is None:
                raise ToolFailure(ErrorCode.NOT_FOUND, f"{ctx.workspace.display(path)} is gone")
            editable(snap, ctx.workspace.display(path))
            befores[path] = snap.text
        afters = texts_after(edits, befores.__getitem__)
        return [
            PlannedWrite(path, ctx.workspace.display(path), befores[path], text)
            for path, text in sorted(afters.items())
            if text != befores[path]
        ]

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Check every file still reads as the rename found it, then write them all."""
        await self.prepare(params, ctx)
        writes = self.planned_writes(params, ctx)
        self._prepared.pop(_key(params, ctx), None)
        a = self.args(params)
        if not writes:
            raise ToolFailure(ErrorCode.NOT_FOUND, f"nothing to rename: {self.describe(params)}")
        bases = []
        for w in writes:
            base = current(ctx, w.path, w.display)
            if base is None or base.text != w.before:
                raise ToolFailure(
                    ErrorCode.CONFLICT,
                    f"{w.display} changed since the rename was worked out; nothing was "
                    "written: call rename again",
                )
            bases.append(base)
        for w, base in zip(writes, bases, strict=True):
            commit(ctx, w.path, w.display, w.after, base)
        if ctx.navigator is not None:
            ctx.navigator.changed(w.path for w in writes)
        lines = [f"Renamed {a.symbol or 'the symbol'} to {a.new_name} in {len(writes)} files:"]
        lines += [f"{w.display} (+{w.diff().added} -{w.diff().removed})" for w in writes]
        diff = "\n".join(compact(w.diff(), 40) for w in writes)
        return ToolResult.ok(
            "\n".join(lines),
            display=diff,
            data={"files": [w.display for w in writes]},
        )


def _key(params: Mapping[str, Any], ctx: ToolContext) -> str:
    """One call's key: its session, id and parameters."""
    return json.dumps([ctx.session_id, ctx.call_id, dict(params)], sort_keys=True, default=str)
