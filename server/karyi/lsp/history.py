"""Sessions and checkpoints: list, load (as the user saw it), rewind, fork, delete; list
and restore workspace snapshots (docs/sessions.md)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from karyi.agent.session.rewind import RewindPlan, Rewound
from karyi.agent.turn.timeline import fork_at, rewind_agent, rewind_plan
from karyi.lsp.errors import RequestFailed, rpc
from karyi.lsp.params import checked
from karyi.lsp.server import KaryiServer
from karyi.lsp.wire.results import (
    NO_TURN,
    CheckpointInfo,
    CheckpointList,
    Deleted,
    Forked,
    LoadedSession,
    Restored,
    RewindResult,
    SessionList,
    TurnRef,
)


@rpc
async def sessions(ls: KaryiServer, raw: Any) -> SessionList:
    """`karyi/sessions`: every stored session (id, title, times)."""
    checked("karyi/sessions", raw)
    store = ls.require_host().runtime.store
    return {"sessions": [dataclasses.asdict(s) for s in store.all()]}


@rpc
async def load_session(ls: KaryiServer, raw: Any) -> LoadedSession:
    """`karyi/loadSession`: a session as the user saw it, to show it again."""
    p = checked("karyi/loadSession", raw)
    live = ls.require_host().session(p["sessionId"])
    transcript = await asyncio.to_thread(live.transcript)
    conv = live.conversation
    return {
        "sessionId": live.id,
        "title": conv.title,
        "transcript": transcript.to_json(),
        "todos": [dataclasses.asdict(t) for t in conv.todos],
        "mode": conv.mode,
        "plan": conv.plan,
        "cost": conv.cost,
    }


@rpc
async def rewind(ls: KaryiServer, raw: Any) -> RewindResult:
    """`karyi/rewind`: take a session back to before one of its turns, or say what that
    would do (`dryRun`)."""
    p = checked("karyi/rewind", raw)
    live = ls.require_host().session(p["sessionId"])
    if p.get("dryRun"):
        plan = await rewind_plan(live.agent, p["turnId"])
        return rewind_json(live.id, plan, None)
    restore, overwrite = p.get("restore", "both"), p.get("overwrite", [])
    done = await rewind_agent(live.agent, p["turnId"], restore, overwrite)
    return rewind_json(live.id, done.plan, done)


@rpc
async def fork_session(ls: KaryiServer, raw: Any) -> Forked:
    """`karyi/forkSession`: a new session with the turns up to one (or all of them)."""
    p = checked("karyi/forkSession", raw)
    host = ls.require_host()
    live = host.session(p["sessionId"])
    new = await fork_at(live.agent, p.get("turnId"))
    return {"sessionId": new, "title": host.session(new).conversation.title}


def rewind_json(sid: str, plan: RewindPlan, done: Rewound | None) -> RewindResult:
    """A rewind's plan, and what it did when it was done, as `karyi/rewind` answers."""
    return {
        "sessionId": sid,
        "turnId": plan.turn_id,
        "prompt": plan.prompt,
        "turns": plan.turns,
        "checkpoint": plan.checkpoint,
        "files": [{"path": f.path, "effect": f.effect, "byAgent": f.by_agent} for f in plan.files],
        "done": done is not None,
        "conversation": done.conversation if done else False,
        "restored": list(done.restored) if done else [],
        "kept": list(done.kept) if done else [],
        "undoCheckpoint": done.undo_checkpoint if done else None,
    }


@rpc
async def delete_session(ls: KaryiServer, raw: Any) -> Deleted:
    """`karyi/deleteSession`: forget a session and delete it from the store."""
    p = checked("karyi/deleteSession", raw)
    host = ls.require_host()
    host.runtime.store.require(p["sessionId"])
    host.forget(p["sessionId"])
    host.runtime.store.delete(p["sessionId"])
    return {"deleted": p["sessionId"]}


@rpc
async def checkpoints(ls: KaryiServer, raw: Any) -> CheckpointList:
    """`karyi/checkpoints`: workspace snapshots, with the turn that took each."""
    p = checked("karyi/checkpoints", raw)
    host = ls.require_host()
    items = await asyncio.to_thread(host.runtime.checkpoints.list)
    turns: dict[str, TurnRef] = {}
    for info in host.runtime.store.all():
        if p.get("sessionId") and info.id != p["sessionId"]:
            continue
        for t in host.runtime.store.turns(info.id):
            if t["checkpoint"]:
                turns[t["checkpoint"]] = {"sessionId": info.id, "turnId": t["turn_id"]}
    out: list[CheckpointInfo] = [
        {"id": c.id, "label": c.label, "time": c.time, **turns.get(c.id, NO_TURN)}
        for c in items
        if not p.get("sessionId") or c.id in turns
    ]
    return {"checkpoints": out}


@rpc
async def restore_checkpoint(ls: KaryiServer, raw: Any) -> Restored:
    """`karyi/restoreCheckpoint`: put a snapshot back (refused while a turn runs)."""
    p = checked("karyi/restoreCheckpoint", raw)
    host = ls.require_host()
    busy = [live.id for live in host.loaded() if live.agent.busy]
    if busy:
        raise RequestFailed(
            f"cannot restore while a turn runs (session {busy[0]}): cancel it first"
        )
    before = await asyncio.to_thread(host.runtime.checkpoints.restore, p["checkpointId"])
    return {"restored": p["checkpointId"], "undoCheckpoint": before.id}
