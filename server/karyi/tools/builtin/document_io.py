"""How every tool reads and writes files: through the document store, on the record.

A read records the version the session saw, so a later whole-file write against a
file that changed since is refused (`refuse_if_stale`) and a find/replace is told
(`stale_reason`). A write goes through the store (atomic, checked against the version
it was computed from) and records the written version as seen.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.tools.context import ToolContext
from karyi.workspace.diffs import FileDiff, diff_texts
from karyi.workspace.documents import DocumentStore
from karyi.workspace.edit_report import EditError
from karyi.workspace.editor import WriteRecord
from karyi.workspace.elided_write import merge_write
from karyi.workspace.files import human_size
from karyi.workspace.merge import rebase
from karyi.workspace.snapshots import Snapshot


def store(ctx: ToolContext) -> DocumentStore:
    """The workspace's document store."""
    return ctx.workspace.documents


def read_text(ctx: ToolContext, path: Path, display: str) -> Snapshot:
    """The file's current text (open buffer first), recorded as read by the session."""
    snap = store(ctx).read(path, display)
    store(ctx).record_read(ctx.session_id, path, snap.version)
    return snap


def current(ctx: ToolContext, path: Path, display: str, *, verb: str = "edited") -> Snapshot | None:
    """The file's current text for a change, None when it does not exist (not recorded).

    A directory or a binary file is refused with a message about changing it.
    """
    if path.is_dir():
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT, f"{display} is a directory, not a file: give a file path"
        )
    try:
        return store(ctx).read_optional(path, display)
    except ToolFailure as exc:
        if exc.code == ErrorCode.BINARY_FILE:
            raise ToolFailure(
                ErrorCode.BINARY_FILE,
                exc.message.replace("it cannot be shown as text", f"it cannot be {verb} as text"),
            ) from None
        raise


def editable(snap: Snapshot, display: str) -> None:
    """Refuse a text that cannot be written back unchanged where the edit does not touch."""
    if snap.truncated:
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT,
            f"{display} is larger than {human_size(len(snap.text))}; it is too large to edit "
            "with this tool",
        )
    if snap.lossy:
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT,
            f"{display} is not valid UTF-8; editing it as text would destroy the bytes that "
            "cannot be decoded",
        )


def stale_reason(ctx: ToolContext, path: Path, snap: Snapshot | None) -> str | None:
    """Why the session's last read of the file is out of date, or None."""
    return store(ctx).stale_reason(ctx.session_id, path, snap)


def refuse_if_stale(ctx: ToolContext, path: Path, display: str, snap: Snapshot | None) -> None:
    """tool_conflict when the file changed since the session last read it."""
    reason = stale_reason(ctx, path, snap)
    if reason:
        raise ToolFailure(
            ErrorCode.CONFLICT,
            f"{display} {reason} since you last read it; read it again before replacing its "
            "content (nothing was written)",
        )


def commit(
    ctx: ToolContext,
    path: Path,
    display: str,
    text: str,
    base: Snapshot | None,
    *,
    make_parents: bool = False,
) -> Snapshot:
    """Write `text` (computed from `base`) atomically and record it as seen.

    The user's own final text for the file (`ctx.overrides`) replaces `text`, which the
    journal keeps as the tool's proposal (so the model can be told what was really
    written); a file the editor owns is not written here but handed to the editor after
    the call (the write is recorded in `ctx.journal` either way).
    """
    proposed = None
    if ctx.overrides and str(path) in ctx.overrides:
        proposed, text = text, _users_text(ctx.overrides[str(path)], display, base)
    deferred = ctx.editor is not None and ctx.journal is not None and ctx.editor.owns(path)
    if ctx.journal is not None:
        record = WriteRecord(path, display, base, text, make_parents, deferred, proposed)
        ctx.journal.append(record)
    if deferred:
        return store(ctx).planned_snapshot(path, text)
    snap = store(ctx).write(
        path, text, display=display, base=base, make_parents=make_parents, ahead=ctx.write_ahead
    )
    store(ctx).record_read(ctx.session_id, path, snap.version)
    return snap


def _users_text(override: tuple[str, str], display: str, base: Snapshot | None) -> str:
    """The user's final text (chosen on the text they saw) rebased onto the file as it is
    now; a conflict when the file changed where their text differs."""
    seen, chosen = override
    merged = rebase(seen, chosen, base.text if base is not None else "")
    if merged is None:
        raise ToolFailure(
            ErrorCode.CONFLICT,
            f"{display} changed after the user approved this edit, where the edit "
            "applies; nothing was written: read it again",
        )
    return merged


@dataclass(frozen=True)
class WritePlan:
    """A whole-file write worked out before it happens: for the prompt and the write."""

    path: Path
    display: str
    base: Snapshot | None
    text: str
    diff: FileDiff
    note: str = ""
    """What the model is told about elisions in its content (merged, or kept in a new file)."""

    @property
    def created(self) -> bool:
        """True when the file does not exist yet."""
        return self.base is None


def plan_write(
    ctx: ToolContext, path: Path, display: str, text: str, *, merge: bool = True
) -> WritePlan:
    """The write of `text` over whatever `path` holds now (refusing binaries, directories).

    With `merge`, elisions in `text` keep the file's own lines (docs/tools.md#elided-edits);
    a merge that is not certain is refused and nothing is written.
    """
    base = current(ctx, path, display, verb="overwritten")
    if base is not None:
        editable(base, display)
    note = ""
    if merge:
        try:
            merged = merge_write(base.text if base else None, text, path=display)
        except EditError as exc:
            raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, f"{display}: {exc.message}") from None
        text, note = merged.text, merged.note
    diff = diff_texts(base.text if base else None, text, path=display)
    return WritePlan(path, display, base, text, diff, note)


def with_file_endings(content: str, existing: str) -> str:
    """Content written with LF gets CRLF when the file it joins uses CRLF throughout."""
    n = existing.count("\n")
    if n and existing.count("\r\n") == n:
        return content.replace("\r\n", "\n").replace("\n", "\r\n")
    return content


def file_keys(paths: Iterable[Path]) -> frozenset[str]:
    """Resource keys for the executor: calls on the same file run in written order."""
    return frozenset(f"file:{p}" for p in paths)
