"""The user's answer to an edit preview: which hunks, or their own text, per file.

The answer becomes the executor's Decision: the final text of each file (applied
instead of the tool's), and a note that tells the model exactly what happened — hunks
applied and rejected, and how the user's text differs from its proposal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from karyi.lsp.context import uri_path
from karyi.workspace.diffs import apply_hunks, diff_texts
from karyi.workspace.editor import PlannedWrite

if TYPE_CHECKING:
    from karyi.agent.approval import ApprovalRequest, Decision


def _ids_for(write: PlannedWrite, accepted: Sequence[str], several: bool) -> list[str]:
    ids = {h.id for h in write.diff().hunks}
    out = []
    for ref in accepted:
        path, sep, hunk = ref.rpartition("#")
        if sep and path not in (write.display, str(write.path), write.path.as_uri()):
            continue
        if not sep and several:
            raise JsonRpcInvalidParams(
                f"karyi/confirmTool: acceptedHunks: {ref!r} is ambiguous with several files; "
                f"write PATH#{ref}"
            )
        name = hunk if sep else ref
        if name not in ids:
            raise JsonRpcInvalidParams(
                f"karyi/confirmTool: acceptedHunks: {ref!r}: {write.display} has hunks "
                f"{', '.join(sorted(ids)) or '(none)'}"
            )
        out.append(name)
    return out


def _modified(write: PlannedWrite, modified: list[dict[str, str]]) -> str | None:
    for item in modified:
        key, text = item["uri"], item["text"]
        if key in (write.display, str(write.path), write.path.as_uri()) or (
            key.startswith("file:") and uri_path(key) == str(write.path)
        ):
            return text
    return None


def edit_decision(params: dict[str, Any], request: ApprovalRequest) -> Decision | None:
    """The Decision for an allow with hunks or modified content; None when the answer is
    a plain allow of the whole edit (nothing to override)."""
    from karyi.agent.approval import Decision

    conf = request.confirmation
    accepted = params.get("acceptedHunks")
    modified = params.get("modifiedContent") or []
    if conf is None or not conf.files or (accepted is None and not modified):
        return None
    writes = list(conf.files)
    overrides: dict[str, tuple[str, str]] = {}
    notes: list[str] = []
    changed_any = False
    for write in writes:
        own = _modified(write, modified)
        hunks = [h.id for h in write.diff().hunks]
        if own is not None:
            final = own
            if own != write.after:
                delta = diff_texts(write.after, own, path=write.display).unified
                notes.append(
                    f"The user edited your change to {write.display} before applying it; "
                    f"what was written differs from your proposal by:\n{delta}"
                )
        elif accepted is not None:
            ids = _ids_for(write, accepted, len(writes) > 1)
            final = apply_hunks(write.before or "", write.diff().hunks, ids)
            rejected = [h for h in hunks if h not in ids]
            if rejected:
                notes.append(
                    f"In {write.display} the user applied hunk(s) {', '.join(ids) or 'none'} "
                    f"and rejected {', '.join(rejected)}."
                )
        else:
            final = write.after
        changed_any = changed_any or final != (write.before or "")
        overrides[str(write.path)] = (write.before or "", final)
    if not changed_any:
        return Decision(False, params.get("feedback") or "the user rejected every hunk")
    return Decision(True, overrides=overrides, note="\n".join(notes) or None)
