"""Find/replace edits of one file: the implementation behind every profile's edit tool.

`plan_edit` reads the file through the store, runs the edit engine and notes whether
the session's picture of the file was stale; `apply_plan` writes the result. A failing
pair becomes a ToolFailure whose message names the file, what went wrong and, when the
file changed since it was read, says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.tools.builtin.document_io import commit, current, editable, stale_reason
from karyi.tools.context import ToolContext
from karyi.workspace.editor import PlannedWrite
from karyi.workspace.edits import EditError, EditOutcome, Pair, apply_edits
from karyi.workspace.snapshots import Snapshot

STALE_KINDS = frozenset({"no_match", "ambiguous", "count", "overlap"})
ELIDE_IN_FIND = (
    " You may leave the middle of a long find text out: a line `...` (or a comment such as "
    "`# ... existing code ...` or `// ... existing code ...`) stands for the file's lines "
    "between the lines around it, which must be copied exactly and match one place only. "
    "Repeat the same line in the replacement to keep those lines as they are; leave it out "
    "to replace them."
)
"""What every find/replace tool's description says about elisions."""


@dataclass(frozen=True)
class EditPlan:
    """An edit worked out against the file's current text, not yet written."""

    path: Path
    display: str
    base: Snapshot | None
    outcome: EditOutcome
    stale: str | None

    @property
    def changed(self) -> bool:
        """True when writing would change the file."""
        return self.outcome.changed

    def planned_write(self) -> PlannedWrite:
        """The change for the approval prompt and the editor preview."""
        before = self.base.text if self.base else None
        return PlannedWrite(self.path, self.display, before, self.outcome.text)

    def stale_note(self) -> str:
        """The sentence telling the model its read was out of date (or "")."""
        if not self.stale:
            return ""
        return (
            f"Note: {self.display} {self.stale} since you last read it; the find text still "
            "matched, so the edit was applied to the current content."
        )


class EditFailure(ToolFailure):
    """A ToolFailure that keeps the engine's error for tools that reword it."""

    def __init__(
        self, code: ErrorCode, message: str, error: EditError, stale: str | None = None
    ) -> None:
        super().__init__(code, message)
        self.error = error
        self.stale = stale


def plan_edit(
    ctx: ToolContext,
    path: Path,
    display: str,
    pairs: Sequence[Pair],
    *,
    after: EditPlan | None = None,
) -> EditPlan:
    """Apply `pairs` to the file's current text in memory; raises ToolFailure on a refusal.

    `after`: an earlier plan of the same file in the same call, which `pairs` apply on
    top of (the result is the file's whole change: `base` stays the file as it is)."""
    if after is not None:
        try:
            outcome = apply_edits(after.outcome.text, pairs, path=display)
        except EditError as exc:
            raise _failure(exc, display, after.stale) from None
        return EditPlan(path, display, after.base, outcome, after.stale)
    base = current(ctx, path, display)
    if base is not None:
        editable(base, display)
    stale = stale_reason(ctx, path, base)
    try:
        outcome = apply_edits(base.text if base else None, pairs, path=display)
    except EditError as exc:
        raise _failure(exc, display, stale) from None
    return EditPlan(path, display, base, outcome, stale)


def _failure(exc: EditError, display: str, stale: str | None) -> EditFailure:
    if exc.kind == "missing_file":
        return EditFailure(ErrorCode.NOT_FOUND, exc.message, exc)
    if stale and exc.kind in STALE_KINDS:
        return EditFailure(
            ErrorCode.CONFLICT,
            f"{display} {stale} since you last read it, and the edit no longer applies: "
            f"{exc.message}",
            exc,
            stale,
        )
    return EditFailure(ErrorCode.INVALID_TOOL_INPUT, exc.message, exc)


def apply_plan(ctx: ToolContext, plan: EditPlan) -> Snapshot | None:
    """Write the planned text (nothing when it would not change the file)."""
    if not plan.changed:
        return None
    return commit(
        ctx,
        plan.path,
        plan.display,
        plan.outcome.text,
        plan.base,
        make_parents=plan.base is None,
    )
