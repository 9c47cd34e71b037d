"""The one-replacement edit tools: agentxml `replace_file_content`, vecli `edit`.

Both are faces over `plan.plan_edit` (one find/replace pair) and `plan.apply_plan`:
- agentxml `replace_file_content(filePath, oldContent, newContent)`: the operation
  result string is `data`.
- vecli `edit(file_path, old_string, new_string, expected_replacements)`: parameters,
  success sentences and error sentences follow Gemini CLI, so a model trained on it
  behaves; Karyi's additions (the closest region on a miss, the candidate lines of an
  ambiguous match, the fallback that matched) follow Gemini's sentence. The display is
  Gemini's FileDiff object (`write.file_diff`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.edit.plan import (
    ELIDE_IN_FIND,
    EditFailure,
    EditPlan,
    apply_plan,
    plan_edit,
)
from karyi.tools.builtin.mutating import MutatingTool
from karyi.tools.builtin.write import ABSOLUTE, FILE_PATH, file_diff
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, arg, param_class
from karyi.workspace.editor import PlannedWrite
from karyi.workspace.edits import Pair, describe_region


@param_class
class ReplaceFileContentParams(ToolParams):
    """agentxml `replace_file_content`'s parameters."""

    snake = False
    file_path: str = arg(description=FILE_PATH)
    old_content: str = arg(description="the text to replace")
    new_content: str = arg(description="the text to put in its place")


@param_class
class VecliEditParams(ToolParams):
    """vecli `edit`'s parameters."""

    file_path: str = arg(description=ABSOLUTE)
    old_string: str = arg(
        description="The exact literal text to replace (empty to create a new file)"
    )
    new_string: str = arg(description="The exact literal text to put in its place")
    expected_replacements: float = arg(
        minimum=1, default=1, description="Number of replacements expected (default 1)"
    )


class ReplaceFileContent(MutatingTool[ReplaceFileContentParams]):
    """agentxml `replace_file_content(filePath, oldContent, newContent)`."""

    name = "replace_file_content"
    display_name = "Replace in file"
    description = (
        "Replace one occurrence of oldContent in a file with newContent. oldContent must be "
        "copied exactly and match exactly one place (add surrounding lines if needed); small "
        "whitespace or indentation slips are forgiven and reported." + ELIDE_IN_FIND
    )
    path_params = ("filePath",)
    example = {"filePath": "src/app.js", "oldContent": "port = 3000", "newContent": "port = 8080"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Replace text in {self.args(params).file_path}"

    def _plan(self, params: Mapping[str, Any], ctx: ToolContext) -> EditPlan:
        a = self.args(params)
        path = ctx.workspace.resolve(a.file_path, param="filePath")
        pair = Pair(a.old_content, a.new_content)
        return plan_edit(ctx, path, a.file_path, [pair])

    def planned_writes(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        """See `MutatingTool.planned_writes`."""
        return [self._plan(params, ctx).planned_write()]

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Replaced 1 occurrence in X (line N, exact match)`."""
        plan = self._plan(params, ctx)
        apply_plan(ctx, plan)
        src = self.args(params).file_path
        report = plan.outcome.pairs[0]
        if plan.base is None:
            message = f"Created {src}" + (f"; {report.detail}" if report.detail else "")
        elif not plan.changed:
            message = f"No change to {src}: " + report.describe().split(": ", 1)[1]
        else:
            message = f"Replaced 1 occurrence in {src} ({report.describe().split(': ', 1)[1]})"
        if note := plan.stale_note():
            message += f"\n{note}"
        return ToolResult.ok(message, data=message, diff=plan.outcome.diff.to_json())


class VecliEdit(MutatingTool[VecliEditParams]):
    """vecli (Gemini CLI) `edit(file_path, old_string, new_string, expected_replacements)`."""

    name = "edit"
    display_name = "Edit"
    description = (
        "Replaces text within a file. By default, replaces a single occurrence, but can "
        "replace multiple occurrences when `expected_replacements` is specified. old_string "
        "must be the exact literal text to replace (including all whitespace and "
        "indentation), with at least 3 lines of context before and after the target so it "
        "matches exactly one place. An empty old_string creates a new file with new_string "
        "as its content." + ELIDE_IN_FIND
    )
    path_params = ("file_path",)
    example = {
        "file_path": "/path/to/project/src/app.py",
        "old_string": "def greet():\n    return 'hi'\n",
        "new_string": "def greet(name):\n    return f'hi {name}'\n",
    }

    def check(self, params: Mapping[str, Any]) -> str | None:
        """Replacements are counted in whole numbers."""
        n = self.args(params).expected_replacements
        if not float(n).is_integer():
            return f"expected_replacements: expected a whole number, got {n}"
        return None

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Edit {self.args(params).file_path}"

    def _plan(self, params: Mapping[str, Any], ctx: ToolContext) -> EditPlan:
        a = self.args(params)
        path = ctx.workspace.resolve(a.file_path, param="file_path")
        shown = str(path)
        old, new = a.old_string, a.new_string
        if old == new:
            raise ToolFailure(
                ErrorCode.INVALID_TOOL_INPUT,
                "No changes to apply. The old_string and new_string are identical in file: "
                f"{shown}",
            )
        expected = int(a.expected_replacements)
        try:
            return plan_edit(ctx, path, shown, [Pair(old, new, expected)])
        except EditFailure as exc:
            raise _gemini_failure(exc, shown, expected) from None

    def planned_writes(self, params: Mapping[str, Any], ctx: ToolContext) -> list[PlannedWrite]:
        """See `MutatingTool.planned_writes`."""
        return [self._plan(params, ctx).planned_write()]

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Gemini's `Successfully modified file: P (N replacements).` and friends."""
        plan = self._plan(params, ctx)
        apply_plan(ctx, plan)
        report = plan.outcome.pairs[0]
        if plan.base is None:
            text = f"Created new file: {plan.path} with provided content."
            if report.detail:
                text += f" Note: {report.detail}."
        elif report.strategy == "already_applied":
            text = (
                f"No changes to apply: old_string was not found in {plan.path}, but new_string "
                f"is already there (line {report.first_line}); the edit seems to be made already."
            )
        else:
            text = f"Successfully modified file: {plan.path} ({report.count} replacements)."
            if report.strategy != "exact":
                text += f" Note: {report.describe().split(', ', 1)[1]}."
        if note := plan.stale_note():
            text += f"\n{note}"
        old = plan.base.text if plan.base else None
        return ToolResult.ok(
            text,
            display=file_diff(str(plan.path), plan.outcome.diff.unified, old, plan.outcome.text),
            data={"path": str(plan.path), "diff": plan.outcome.diff.to_json()},
        )


def _gemini_failure(exc: EditFailure, shown: str, expected: int) -> ToolFailure:
    err = exc.error
    if err.kind == "missing_file":
        return ToolFailure(
            ErrorCode.NOT_FOUND,
            "File not found. Cannot apply edit. Use an empty old_string to create a new file.",
        )
    if err.kind == "empty_find":
        return ToolFailure(
            ErrorCode.CONFLICT, "Failed to edit. Attempted to create a file that already exists."
        )
    prefix = f"{shown} {exc.stale} since you last read it. " if exc.stale else ""
    if err.kind in ("elision", "unsafe") or "elision" in err.message:
        return ToolFailure(
            exc.code, f"{prefix}Failed to edit {shown}, no edits made: {err.message}"
        )
    if err.kind == "no_match":
        closest = f"\n{describe_region(err.region)}" if err.region else ""
        return ToolFailure(
            exc.code,
            f"{prefix}Failed to edit, 0 occurrences found for old_string in {shown}. No edits "
            "made. The exact text in old_string was not found. Ensure you're not escaping "
            "content incorrectly and check whitespace, indentation, and context. Use read_file "
            f"tool to verify.{closest}",
        )
    if err.kind == "overlap":
        return ToolFailure(exc.code, prefix + exc.message)
    lines = ", ".join(map(str, err.lines[:20])) + (", ..." if len(err.lines) > 20 else "")
    return ToolFailure(
        exc.code,
        f"{prefix}Failed to edit, expected {expected} occurrence(s) but found "
        f"{len(err.lines)} for old_string in file: {shown} (at lines {lines}). Add more "
        "context to old_string so it matches exactly the places meant, or set "
        "expected_replacements.",
    )
