"""karyi `<edit>`: find/replace pairs on one or more files, a face over `plan`.

Each `<file>` is atomic: all its pairs apply or none; the files of one call are
independent, and the result says per file what happened (which strategy matched each
pair, the diff, or the precise reason it was refused).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from karyi.core.errors import ToolFailure
from karyi.core.results import ToolResult
from karyi.protocol.xmltext import start_tag
from karyi.tools.builtin.document_io import file_keys
from karyi.tools.builtin.edit.plan import ELIDE_IN_FIND, EditPlan, apply_plan, plan_edit
from karyi.tools.builtin.mutating import MutatingTool
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, arg, param_class
from karyi.workspace.diffs import compact
from karyi.workspace.editor import PlannedWrite
from karyi.workspace.edits import Pair


@param_class
class PairItem(ToolParams):
    """One find/replace pair."""

    find: str = arg(description="exact text to find (empty: create the file)")
    replace: str = arg(description="text to put in its place")


@param_class
class FileEdit(ToolParams):
    """One file's pairs."""

    src: str = arg(min_length=1, description="file path")
    pairs: list[PairItem] = arg(min_items=1)


@param_class
class EditParams(ToolParams):
    """karyi `edit`'s parameters."""

    files: list[FileEdit] = arg(min_items=1)


DIFF_LINES = 60


def _pairs(item: FileEdit) -> list[Pair]:
    return [Pair(p.find, p.replace) for p in item.pairs]


@dataclass
class _FileResult:
    section: str
    data: dict[str, Any]
    failure: ToolFailure | None = None
    summary: list[str] = field(default_factory=list)


class EditTool(MutatingTool[EditParams]):
    """Applies find/replace pairs to files, each file all-or-nothing."""

    name = "edit"
    display_name = "Edit"
    description = (
        "Edit files by find/replace pairs, applied in order. Copy each find text exactly "
        "from the file, with enough surrounding lines to match exactly one place; a find "
        "that matches several places or none is refused with the candidates or the closest "
        "region. All pairs of one file apply or none. An empty find creates a new file."
        + ELIDE_IN_FIND
    )
    example = {
        "files": [
            {
                "src": "src/config.ts",
                "pairs": [
                    {
                        "find": 'const API_URL = "http://localhost:3000";',
                        "replace": 'const API_URL = "https://api.production.com";',
                    }
                ],
            }
        ]
    }

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return "Edit " + ", ".join(f.src for f in self.args(params).files)

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """Every file the call edits."""
        return file_keys(ctx.workspace.resolve(f.src, param="src") for f in self.args(params).files)

    def planned_writes(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        """Every file's change, one per file: a file named by several `<file>` elements
        gets them applied in order, so its hunks are numbered once (a file that would
        fail raises)."""
        plans: dict[Path, EditPlan] = {}
        for item in self.args(params).files:
            path = ctx.workspace.resolve(item.src, param="src")
            plans[path] = plan_edit(ctx, path, item.src, _pairs(item), after=plans.get(path))
        return [plan.planned_write() for plan in plans.values()]

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Edit each file in turn; one file's failure does not stop the others. A file the
        user chose their own text for is written once, with its first `<file>`."""
        results, chosen = [], set()
        for item in self.args(params).files:
            path = ctx.workspace.resolve(item.src, param="src")
            if path in chosen:
                results.append(_chosen_already(item.src))
                continue
            results.append(self._one(item, ctx))
            if ctx.overrides and str(path) in ctx.overrides:
                chosen.add(path)
        text = "\n".join(r.section for r in results)
        data = {"files": [r.data for r in results]}
        display = "\n".join(line for r in results for line in r.summary)
        failed = [r.failure for r in results if r.failure is not None]
        if failed:
            first = failed[0]
            return ToolResult.fail(
                first.code, first.message, llm_content=text, display=display, data=data
            )
        return ToolResult.ok(text, display=display, data=data)

    def _one(self, item: FileEdit, ctx: ToolContext) -> _FileResult:
        src = item.src
        try:
            path = ctx.workspace.resolve(src, param="src")
            plan = plan_edit(ctx, path, src, _pairs(item))
            apply_plan(ctx, plan)
        except ToolFailure as exc:
            section = start_tag("file", {"src": src, "status": "error", "code": exc.code})
            return _FileResult(
                section + exc.message + "</file>",
                {
                    "src": src,
                    "status": "error",
                    "error": {"code": exc.code, "message": exc.message},
                },
                exc,
                [f"{src}: {exc.message.splitlines()[0]}"],
            )
        return _success(src, plan)


def _chosen_already(src: str) -> _FileResult:
    """A later `<file>` of a file whose text the user chose: written with the first."""
    said = "written with the first <file> of it: the user chose its final text"
    section = start_tag("file", {"src": src, "status": "edited"}) + said + "</file>"
    return _FileResult(section, {"src": src, "status": "edited"}, None, [])


def _success(src: str, plan: EditPlan) -> _FileResult:
    outcome = plan.outcome
    diff = outcome.diff
    status = "created" if plan.base is None else "edited" if outcome.changed else "unchanged"
    attrs = {"src": src, "status": status}
    if outcome.changed:
        attrs["added"], attrs["removed"] = str(diff.added), str(diff.removed)
    lines = [p.describe() for p in outcome.pairs]
    if outcome.changed:
        lines.append(compact(diff, DIFF_LINES))
    else:
        lines.append("(no change: the file already has this content; nothing was written)")
    if note := plan.stale_note():
        lines.append(note)
    section = start_tag("file", attrs) + "\n" + "\n".join(lines) + "\n</file>"
    data = {
        "src": src,
        "path": str(plan.path),
        "status": status,
        "pairs": [
            {"strategy": p.strategy, "lines": [p.first_line, p.last_line], "changed": p.changed}
            for p in outcome.pairs
        ],
        "diff": diff.to_json(),
        "stale": plan.stale,
    }
    summary = f"{status.capitalize()} {src}" + (f" ({diff.summary()})" if outcome.changed else "")
    return _FileResult(section, data, None, [summary])
