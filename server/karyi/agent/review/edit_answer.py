"""The user's answer to an edit preview: which hunks, or their own text, per file.

An editor can answer a confirmation for an edit with more than yes or no: the hunks to
apply (`acceptedHunks`), or the user's own final text for a file (`modifiedContent`);
see docs/protocol.md, "Permissions and edit previews". `edit_decision` turns that answer
into the Decision the executor applies: the final text of each file (written instead of
the tool's), and a note that tells the model exactly what happened — hunks applied and
rejected, and how the user's text differs from its proposal.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from karyi.agent.review.approval import ApprovalRequest, Decision
from karyi.workspace.diffs import apply_hunks, diff_texts
from karyi.workspace.editor import PlannedWrite

_DRIVE = re.compile(r"/[A-Za-z]:")


class InvalidEditAnswer(ValueError):
    """An answer naming hunks the preview does not have (or not saying which file's)."""


def _ids_for(write: PlannedWrite, accepted: Sequence[str], several: bool) -> list[str]:
    ids = {h.id for h in write.diff().hunks}
    out = []
    for ref in accepted:
        path, sep, hunk = ref.rpartition("#")
        if sep and path not in (write.display, str(write.path), write.path.as_uri()):
            continue
        if not sep and several:
            raise InvalidEditAnswer(
                f"acceptedHunks: {ref!r} is ambiguous with several files; write PATH#{ref}"
            )
        name = hunk if sep else ref
        if name not in ids:
            raise InvalidEditAnswer(
                f"acceptedHunks: {ref!r}: {write.display} has hunks "
                f"{', '.join(sorted(ids)) or '(none)'}"
            )
        out.append(name)
    return out


def _uri_path(uri: str) -> Path:
    """The file a `file:` URI names (`file:///c%3A/x` is `c:/x`, a host a UNC share)."""
    parts = urlsplit(uri)
    path = unquote(parts.path)
    if parts.netloc:
        path = f"//{parts.netloc}{path}"
    elif _DRIVE.match(path):
        path = path[1:]
    return Path(os.path.normpath(path) if os.name == "nt" else path)


def _modified(write: PlannedWrite, modified: Sequence[Mapping[str, str]]) -> str | None:
    for item in modified:
        key, text = item["uri"], item["text"]
        if key in (write.display, str(write.path), write.path.as_uri()) or (
            key.startswith("file:") and _uri_path(key) == write.path
        ):
            return text
    return None


def _final_text(
    write: PlannedWrite,
    accepted: Sequence[str] | None,
    modified: Sequence[Mapping[str, str]],
    several: bool,
) -> tuple[str, str | None]:
    """The text the user chose for one file, and what to tell the model about it."""
    own = _modified(write, modified)
    if own is not None:
        if own == write.after:
            return own, None
        delta = diff_texts(write.after, own, path=write.display).unified
        return own, (
            f"The user edited your change to {write.display} before applying it; "
            f"what was written differs from your proposal by:\n{delta}"
        )
    if accepted is None:
        return write.after, None
    hunks = [h.id for h in write.diff().hunks]
    ids = _ids_for(write, accepted, several)
    final = apply_hunks(write.before or "", write.diff().hunks, ids)
    rejected = [h for h in hunks if h not in ids]
    if not rejected:
        return final, None
    return final, (
        f"In {write.display} the user applied hunk(s) {', '.join(ids) or 'none'} "
        f"and rejected {', '.join(rejected)}."
    )


def edit_decision(params: Mapping[str, Any], request: ApprovalRequest) -> Decision | None:
    """The Decision for an allow with hunks or modified content; None when the answer is
    a plain allow of the whole edit (nothing to override). Raises InvalidEditAnswer for
    hunks the preview does not have."""
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
        final, note = _final_text(write, accepted, modified, len(writes) > 1)
        if note is not None:
            notes.append(note)
        changed_any = changed_any or final != (write.before or "")
        overrides[str(write.path)] = (write.before or "", final)
    feedback = params.get("feedback") or None
    if not changed_any:
        return Decision(False, feedback or "the user rejected every hunk")
    if feedback and notes:  # a partial rejection: the user's reason is for the model too
        notes.append(f"The user said: {feedback}")
    return Decision(True, overrides=overrides, note="\n".join(notes) or None)
