"""The review profile's `report_finding`: how a reviewer says what is wrong with a change.

Only the reviewers of `karyi review` get this tool (the `review` profile, docs/review.md):
each call records one finding on lines of a file. The call itself only checks and echoes
the finding; the review that runs the reviewer reads it from the call's result
(`data`), keeps it when it lies on the change and merges it with the same finding from
another reviewer (agent/code_review/).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class

Severity = Literal["error", "warning", "info"]


@param_class
class ReportFindingParams(ToolParams):
    """`report_finding`'s parameters."""

    path: str = arg(min_length=1, description="The file, relative to the workspace root")
    line: int = arg(minimum=1, description="The first line the finding is about (1-based)")
    end_line: int | None = arg(
        minimum=1, implied=None, description="The last line (default: `line`)"
    )
    severity: Severity = arg(
        description="error: a bug, a vulnerability or a broken build; warning: likely wrong "
        "or risky; info: worth knowing"
    )
    title: str = arg(min_length=1, max_length=200, description="One line: what is wrong")
    body: str = arg(min_length=1, description="Why it is wrong and what it breaks")
    suggestion: str | None = arg(
        implied=None,
        description="Replacement text for lines line..end_line, whole lines, when the fix "
        "is mechanical",
    )


class ReportFinding(TypedTool[ReportFindingParams]):
    """`report_finding(path, line, end_line?, severity, title, body, suggestion?)`."""

    name = "report_finding"
    display_name = "Report Finding"
    description = (
        "Report one problem in the change under review, on the lines it is about. Call it "
        "once per problem; report only real problems in changed code, with a concrete "
        "reason."
    )
    example = {
        "path": "src/app.py",
        "line": 12,
        "severity": "error",
        "title": "Division by zero when the list is empty",
        "body": "`average([])` divides by `len(items)`, which is 0.",
        "suggestion": "    return sum(items) / len(items) if items else 0.0\n",
    }
    plan_safe = True

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        return f"{a.severity}: {a.path}:{a.line} {a.title}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Check the finding's place and return it as the result's data."""
        a = self.args(params)
        end = a.end_line if a.end_line is not None else a.line
        if end < a.line:
            raise ToolFailure(
                ErrorCode.INVALID_TOOL_INPUT,
                f"end_line: expected at least line ({a.line}), got {end}",
            )
        target = ctx.workspace.resolve(a.path, param="path")
        if not target.is_file():
            raise ToolFailure(ErrorCode.NOT_FOUND, f"path: no file {a.path!r} in the workspace")
        text = ctx.workspace.documents.read(target, a.path).text  # the open buffer first
        count = max(1, len(text.splitlines()))
        if end > count:
            which = "end_line" if end != a.line else "line"
            raise ToolFailure(
                ErrorCode.INVALID_TOOL_INPUT,
                f"{which}: {a.path} has {count} line(s), got {end}",
            )
        root = ctx.workspace.root
        relative = target.relative_to(root).as_posix() if target.is_relative_to(root) else a.path
        finding: dict[str, Any] = {
            "path": relative,
            "line": a.line,
            "endLine": end,
            "severity": a.severity,
            "title": a.title.strip(),
            "body": a.body.strip(),
        }
        if a.suggestion is not None:
            finding["suggestion"] = a.suggestion
        return ToolResult.ok(
            f"Recorded: {a.severity} at {relative}:{a.line}-{end}.",
            data=finding,
            display=f"{a.severity} · {relative}:{a.line} {a.title.strip()}",
        )
