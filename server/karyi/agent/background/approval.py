"""Who approves a background task's calls (docs/parallel.md#approval).

A task works in its own worktree, and the review comes at the end, so edits of files
inside that worktree apply without asking. Commands are judged by the tools themselves:
in the OS sandbox with `shell.sandbox.autoApprove` they never reach an approver. What
still needs the user pauses this task alone: `ask` (the front end's question, or the
detached runner's request file) answers it while the other tasks go on. Without anyone
to ask (a batch), such a call is refused and the model is told why.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from karyi.agent.review.approval import ApprovalRequest, Decision

Ask = Callable[[ApprovalRequest], Awaitable[Decision]]

UNATTENDED = (
    "This is an unattended background task: nobody can approve this call, so it was not "
    "run. Work inside the task's own files, and leave what needs a person for the review."
)


def inside(path: Path, root: Path) -> bool:
    """Whether `path` is `root` or below it (both resolved)."""
    return path.resolve().is_relative_to(root.resolve())


class TaskApprover:
    """Allows the task's edits in its worktree; asks (pausing this task) for the rest."""

    def __init__(self, worktree: Path, ask: Ask | None) -> None:
        self.worktree = worktree
        self.ask = ask

    async def __call__(self, request: ApprovalRequest) -> Decision:
        """See `Approver`."""
        confirmation = request.confirmation
        files = confirmation.files if confirmation and confirmation.kind == "edit" else None
        if files is not None and all(inside(w.path, self.worktree) for w in files):
            return Decision(True)
        if self.ask is None:
            return Decision(False, feedback=UNATTENDED)
        return await self.ask(request)
