"""The files one call changed: journaled as it runs, handed to the editor, announced.

Each call runs with a journal of its own (`ToolContext.journal`), and a write-ahead
journal on disk that makes its writes all-or-nothing across a crash
(`workspace/write_ahead.py`). Writes to files open
in an editor are deferred: the editor applies them (the language server, so the user's
unsaved text is respected); a write it cannot apply turns the result into a conflict.
What changed is announced as one `FileChanged` event, and the diagnostics the change
added or fixed are appended to the result (`agent/diagnostics/problems.py`). When the
user's answer changed what was written (some hunks rejected, or their own text), the
result the model reads is replaced by what the files now hold (`agent/review/edit_truth.py`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from karyi.agent.diagnostics.problems import ProblemCheck
from karyi.agent.events import FileChanged, Listener
from karyi.agent.review.edit_truth import truthful
from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult
from karyi.protocol.calls import ToolCall
from karyi.tools.context import ToolContext
from karyi.workspace.editor import PlannedWrite, WriteRecord
from karyi.workspace.write_ahead import WriteAhead


async def run_journaled(
    call: ToolCall,
    ctx: ToolContext,
    description: str,
    run: Callable[[ToolContext], Awaitable[ToolResult]],
    emit: Listener,
    check: ProblemCheck | None = None,
) -> ToolResult:
    """`run` the call with a fresh write journal; hand the editor its deferred writes;
    tell the model what was really written, and the problems it added or fixed
    (`agent/diagnostics/problems.py`; the caller starts `check` before the user is
    asked); report what changed."""
    journal: list[WriteRecord] = []
    ahead = WriteAhead(ctx.workspace.root)
    ctx = dataclasses.replace(ctx, journal=journal, write_ahead=ahead)
    try:
        result = await run(ctx)
    finally:
        ahead.close()  # the call's disk writes are done: nothing to roll back
    deferred = [w for w in journal if w.deferred]
    if deferred and ctx.editor is not None:
        problems = await ctx.editor.apply(deferred, description)
        if problems:
            message = "; ".join(problems)
            result = ToolResult.fail(
                ErrorCode.CONFLICT, message, llm_content=f"{message}\n{result.llm_content}"
            )
            journal = [w for w in journal if not w.deferred]
    result = _told(result, journal, ctx)
    if journal and check is not None and result.success:
        result = await check.finish(result, journal, ctx)
    if journal:
        planned = tuple(w.planned() for w in journal)
        emit(FileChanged(call, planned))
        result = _with_files(result, planned)
    return result


def _with_files(result: ToolResult, planned: tuple[PlannedWrite, ...]) -> ToolResult:
    """The result with the files it changed in `metadata.files` (path, added and removed
    lines, created, deleted): what the session's transcript shows and a rewind knows as
    the agent's (docs/sessions.md)."""
    files = []
    for write in planned:
        diff = write.diff()
        files.append(
            {
                "path": write.display,
                "added": diff.added,
                "removed": diff.removed,
                "created": diff.created,
                "deleted": diff.deleted,
            }
        )
    return dataclasses.replace(result, metadata={**result.metadata, "files": files})


def _told(result: ToolResult, journal: list[WriteRecord], ctx: ToolContext) -> ToolResult:
    """The result with the truth about the files the user's answer changed, redacted like
    every result (the lines shown come from the files, which may hold a secret value)."""
    told = truthful(result, journal, ctx.overrides)
    if told is not result and ctx.secrets is not None:
        told = ctx.secrets.redactor.redact_result(told)
    return told
