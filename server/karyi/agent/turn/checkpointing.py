"""A checkpoint before a turn's first change: taken once per turn, said either way."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from karyi.agent.events import Event, Notice
from karyi.agent.session.checkpoints import Checkpoints
from karyi.agent.session.conversation import Conversation


def before_first_change(
    checkpoints: Checkpoints | None,
    conv: Conversation,
    turn_id: str,
    emit: Callable[[Event], None],
) -> Callable[[], Awaitable[None]] | None:
    """What the executor runs before a call changes the workspace (None: no checkpoints)."""
    if checkpoints is None:
        return None

    async def snapshot() -> None:
        if conv.store is not None and any(
            t["turn_id"] == turn_id and t["checkpoint"] for t in conv.store.turns(conv.id)
        ):
            return
        label = f"before turn {turn_id}: {conv.title}"
        try:
            cp = await asyncio.to_thread(checkpoints.snapshot, label)
        except Exception as exc:  # a failed snapshot must not stop the work, but is said
            emit(Notice("checkpoint", f"could not take a checkpoint: {exc}"))
            return
        if conv.store is not None:
            conv.store.set_checkpoint(conv.id, turn_id, cp.id)
        emit(Notice("checkpoint", f"checkpoint {cp.id[:12]} taken before changes"))

    return snapshot
