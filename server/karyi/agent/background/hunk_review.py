"""Reviewing a finished task hunk by hunk, like any edit (docs/parallel.md#review-hunk-by-hunk).

The proposal of each file is what "apply" would write: the three-way merge of the task's
change with the file as it is now (merge.py), shown as hunks against the file as it is
now, so the editor previews it with the same per-hunk review as an edit the agent
proposes. The answer (the hunks accepted, or the user's own text of a file) is applied
to the file as it is then: the proposal is computed again, and a hunk id it no longer
has means the file changed meanwhile (review again). Files the merge cannot show as text
hunks (binary, or deleted on one side while changed on the other) are left out of the
review with a note; a file the task deleted is offered as a deletion only by "apply".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from karyi.agent.background.manager import TaskError
from karyi.agent.background.merge import ApplyResult, merge_one, write_file
from karyi.agent.background.records import APPLIED, TaskBook, TaskRecord
from karyi.agent.background.review import finished
from karyi.agent.background.worktrees import changes
from karyi.workspace.diffs import apply_hunks
from karyi.workspace.editor import PlannedWrite


@dataclass
class TaskReview:
    """The proposals of a task's files, and what is left out of them."""

    writes: list[PlannedWrite] = field(default_factory=list)
    clean: dict[str, bool] = field(default_factory=dict)
    """Per file: whether the merge had no conflict (else its hunks hold the markers)."""
    notes: list[str] = field(default_factory=list)


def _text(data: bytes | None) -> str | None:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def review(record: TaskRecord) -> TaskReview:
    """Each changed file of the task as a proposal against the working tree."""
    if record.head is None:
        raise TaskError(f"task {record.id} has no committed work to review")
    repo = Path(record.repo)
    out = TaskReview()
    for change in changes(repo, record.base, record.head):
        merged = merge_one(repo, record.base, record.head, change)
        if merged.note is not None:
            out.notes.append(merged.note)
            continue
        mine, theirs = _text(merged.mine), _text(merged.text)
        if merged.text is None:
            out.notes.append(f"{change.path}: the task deletes it (apply the whole task)")
        elif theirs is None or (merged.mine is not None and mine is None):
            out.notes.append(f"{change.path}: not text (apply the whole task)")
        elif mine != theirs:
            out.writes.append(PlannedWrite(repo / change.path, change.path, mine, theirs))
            out.clean[change.path] = merged.clean
    return out


def apply_reviewed(
    book: TaskBook,
    task_id: str,
    accepted: Sequence[str] | None,
    modified: Mapping[str, str],
) -> tuple[TaskRecord, ApplyResult]:
    """Apply the accepted hunks (`path#h1`, or `h1` when one file; None: all of them),
    or the user's own text of a file (`modified`, by path), to the working tree; the
    task is applied. Raises TaskError, writing nothing, when a hunk is unknown."""
    record = finished(book, task_id, "apply")
    if record.status == APPLIED:
        raise TaskError(f"task {record.id} was applied already")
    proposals = review(record)
    several = len(proposals.writes) > 1
    texts: dict[str, str] = {}
    for write in proposals.writes:
        if write.display in modified:
            texts[write.display] = modified[write.display]
            continue
        ids = _ids(write, accepted, several)
        try:
            texts[write.display] = apply_hunks(write.before or "", write.diff().hunks, ids)
        except KeyError as exc:
            raise TaskError(
                f"{write.display}: {exc.args[0]}: it changed since the review began, review again"
            ) from None
    result = ApplyResult(notes=list(proposals.notes))
    for write in proposals.writes:
        text = texts[write.display]
        if text == (write.before or ""):
            continue
        write_file(write.path, text.encode("utf-8"))
        conflicted = not proposals.clean[write.display] and "<<<<<<<" in text
        (result.conflicts if conflicted else result.merged).append(write.display)
    record.status = APPLIED
    book.save(record)
    return record, result


def _ids(write: PlannedWrite, accepted: Sequence[str] | None, several: bool) -> list[str]:
    hunks = [h.id for h in write.diff().hunks]
    if accepted is None:
        return hunks
    out = []
    for ref in accepted:
        path, sep, hunk = ref.rpartition("#")
        if sep and path == write.display:
            out.append(hunk)
        elif not sep and not several:
            out.append(ref)
        elif not sep:
            raise TaskError(
                f"acceptedHunks: {ref!r} is ambiguous with several files: write PATH#{ref}"
            )
    return out
