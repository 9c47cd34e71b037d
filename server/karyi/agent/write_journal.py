"""The files one call changed: journaled as it runs, handed to the editor, announced.

Each call runs with a journal of its own (`ToolContext.journal`). Writes to files open
in an editor are deferred: the editor applies them (the language server, so the user's
unsaved text is respected); a write it cannot apply turns the result into a conflict.
What changed is announced as one `FileChanged` event.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from karyi.agent.events import FileChanged, Listener
from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult
from karyi.protocol.calls import ToolCall
from karyi.tools.context import ToolContext
from karyi.workspace.editor import WriteRecord


async def run_journaled(
    call: ToolCall,
    ctx: ToolContext,
    description: str,
    run: Callable[[ToolContext], Awaitable[ToolResult]],
    emit: Listener,
) -> ToolResult:
    """`run` the call with a fresh write journal; hand the editor its deferred writes;
    report what changed."""
    journal: list[WriteRecord] = []
    ctx = dataclasses.replace(ctx, journal=journal)
    result = await run(ctx)
    deferred = [w for w in journal if w.deferred]
    if deferred and ctx.editor is not None:
        problems = await ctx.editor.apply(deferred, description)
        if problems:
            message = "; ".join(problems)
            result = ToolResult.fail(
                ErrorCode.CONFLICT, message, llm_content=f"{message}\n{result.llm_content}"
            )
            journal = [w for w in journal if not w.deferred]
    if journal:
        emit(FileChanged(call, tuple(w.planned() for w in journal)))
    return result
