"""Sessions and checkpoints: list, load, delete; list and restore workspace snapshots."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from karyi.lsp.errors import RequestFailed, rpc
from karyi.lsp.params import checked
from karyi.lsp.server import KaryiServer
from karyi.lsp.wire.results import (
    NO_TURN,
    CheckpointInfo,
    CheckpointList,
    Deleted,
    LoadedSession,
    Restored,
    SessionList,
    StoredMessage,
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
    """`karyi/loadSession`: a session's messages, tool calls and turns, to show it again."""
    p = checked("karyi/loadSession", raw)
    host = ls.require_host()
    live = host.session(p["sessionId"])
    store = host.runtime.store
    messages: list[StoredMessage] = [
        {
            "role": m.role,
            "content": m.content,
            "name": m.name,
            "toolCallId": m.tool_call_id,
            "toolCalls": [dataclasses.asdict(c) for c in m.tool_calls],
            "images": [i.to_json() for i in m.images],
        }
        for m in store.messages(live.id)
    ]
    calls = [dataclasses.asdict(c) for c in store.calls(live.id)]
    return {
        "sessionId": live.id,
        "title": live.conversation.title,
        "messages": messages,
        "calls": calls,
        "turns": store.turns(live.id),
        "todos": [dataclasses.asdict(t) for t in live.conversation.todos],
        "mode": live.conversation.mode,
        "plan": live.conversation.plan,
        "cost": live.conversation.cost,
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
