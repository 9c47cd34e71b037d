"""Turns and everything a client answers during one: chat, cancel, permissions (with
edit hunks), file diffs, secret values, and the agent's terminal.

While a turn runs, every agent event goes to the client as a `karyi/turnUpdate`
notification `{sessionId, turnId, event}`, and terminal output as
`karyi/terminalOutput`; the chat request answers when the turn ends. `$/cancelRequest`
on the chat request and `karyi/cancel` both cancel the turn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from karyi.lsp.documents import until_seen
from karyi.lsp.editor_context import describe_context
from karyi.lsp.errors import RequestFailed, rpc
from karyi.lsp.models import checked_images
from karyi.lsp.params import checked
from karyi.lsp.server import KaryiServer
from karyi.lsp.wire.results import (
    Acknowledged,
    CallDiffs,
    Cancelled,
    ChatResult,
    FileDiffs,
    ModeState,
    TerminalOutput,
    TurnUpdate,
)

if TYPE_CHECKING:  # the agent stack is imported once the host is built, not at start-up
    from karyi.agent.events import Event
    from karyi.agent.review.approval import ApprovalRequest, Decision
    from karyi.workspace.editor import FileProposalJson, PlannedWrite

TERMINAL_TOOLS = frozenset({"command", "input", "ctrl"})


async def run_chat(
    ls: KaryiServer,
    session_id: str | None,
    message: str,
    context: dict[str, Any] | None,
    extra_listener: Any = None,
    mode: str | None = None,
    plan: str | None = None,
    images: list[Any] | None = None,
) -> ChatResult:
    """Run one turn, streaming `karyi/turnUpdate`s; the chat result. `mode` (and the
    user's `plan` for an act turn) switch the session first (docs/workflow.md)."""
    from karyi.agent.events import ToolOutput, ToolRunning, TurnStarted

    pictures = checked_images(images or [])  # before anything changes
    host = ls.require_host()
    live = host.session(session_id)
    if (mode is not None or plan is not None) and not live.agent.busy:
        live.agent.set_mode(mode or live.agent.mode, plan=plan)
    turn = {"id": ""}
    terminal_calls: set[str] = set()

    def listener(event: Event) -> None:
        if isinstance(event, TurnStarted):
            turn["id"] = event.turn_id
        update: TurnUpdate = {"sessionId": live.id, "turnId": turn["id"], "event": event.to_dict()}
        ls.notify("karyi/turnUpdate", update)
        if isinstance(event, ToolRunning) and event.call.name in TERMINAL_TOOLS:
            terminal_calls.add(event.call.id)
        if isinstance(event, ToolOutput) and event.call_id in terminal_calls:
            output: TerminalOutput = {"sessionId": live.id, "data": event.text}
            ls.notify("karyi/terminalOutput", output)
        if extra_listener is not None:
            extra_listener(event)

    context_text = describe_context(context, host.runtime.workspace.root)
    done = ls.turn_request(live.id)
    try:
        _, result = await host.chat(
            live.id, message, context=context_text, images=pictures, listener=listener
        )
    finally:
        done()
    return {
        "sessionId": live.id,
        "mode": live.agent.mode,
        "turnId": result.turn_id,
        "stopReason": result.stop_reason,
        "finalAnswer": result.final_answer,
        "usage": {
            "inputTokens": result.input_tokens,
            "outputTokens": result.output_tokens,
            "cachedTokens": result.cached_tokens,
            "cost": result.cost,
        },
        "unsent": list(result.unsent),
    }


def decision_from(params: dict[str, Any], request: ApprovalRequest | None) -> Decision:
    """A confirmTool answer as the executor's Decision (hunks and the user's own text for
    edits: see agent/review/edit_answer.py)."""
    from karyi.agent.review.approval import Decision
    from karyi.agent.review.edit_answer import edit_decision

    outcome = params["outcome"]
    if outcome in ("reject", "rejectAlways"):
        feedback = params.get("feedback") or None
        return Decision(False, feedback, reject_always=outcome == "rejectAlways")
    remember = params.get("scope", "session") if outcome == "allowAlways" else None
    edit = edit_decision(params, request) if request is not None else None
    if edit is None:
        return Decision(True, remember=remember)
    return dataclasses.replace(edit, remember=remember if edit.allow else None)


def _diffs_of(files: Iterable[PlannedWrite]) -> list[FileProposalJson]:
    return [f.to_json() for f in files]


@rpc
async def chat(ls: KaryiServer, raw: Any) -> ChatResult:
    """`karyi/chat`: run one turn; the result comes when it ends."""
    p = checked("karyi/chat", raw)
    return await run_chat(
        ls,
        p.get("sessionId"),
        p["message"],
        p.get("context"),
        mode=p.get("mode"),
        plan=p.get("plan"),
        images=p.get("images"),
    )


@rpc
async def set_mode(ls: KaryiServer, raw: Any) -> ModeState:
    """`karyi/setMode`: switch a session (a new one without `sessionId`) to plan or act;
    `plan` replaces what the next act turn carries."""
    p = checked("karyi/setMode", raw)
    live = ls.require_host().session(p.get("sessionId"))
    if live.agent.busy:
        raise RequestFailed(f"session {live.id} is running a turn: wait for it or cancel it")
    live.agent.set_mode(p["mode"], plan=p.get("plan"))
    return {"sessionId": live.id, "mode": live.agent.mode, "plan": live.conversation.plan}


@rpc
async def steer(ls: KaryiServer, raw: Any) -> Acknowledged:
    """`karyi/steer`: send a message into the session's running turn (RequestFailed when
    none runs)."""
    p = checked("karyi/steer", raw)
    host = ls.require_host()
    host.require(p["sessionId"])  # an unknown session is InvalidParams (docs/protocol.md)
    host.steer(p["sessionId"], p["message"])
    return {"ok": True}


@rpc
async def cancel(ls: KaryiServer, raw: Any) -> Cancelled:
    """`karyi/cancel`: cancel the session's running turn."""
    p = checked("karyi/cancel", raw)
    host = ls.require_host()
    host.require(p["sessionId"])  # an unknown session is InvalidParams (docs/protocol.md)
    return {"cancelled": host.cancel(p["sessionId"])}


@rpc
async def confirm_tool(ls: KaryiServer, raw: Any) -> Acknowledged:
    """`karyi/confirmTool`: the user's answer to a permission request."""
    p = checked("karyi/confirmTool", raw)
    host = ls.require_host()
    # The client took its preview lines out of these buffers before it answered; their
    # didChange may still be behind this request, and a preview line is not the user's.
    await until_seen(ls, [(d["uri"], d["version"]) for d in p.get("documents") or []])
    waiting = {w.request.call.id: w.request for w in host.pending(p["sessionId"])}
    decision = decision_from(p, waiting.get(p["toolCallId"]))
    host.answer(p["sessionId"], p["toolCallId"], decision)
    return {"ok": True}


@rpc
async def file_diffs(ls: KaryiServer, raw: Any) -> FileDiffs:
    """`karyi/fileDiffs`: the diffs waiting for approval and those already applied."""
    p = checked("karyi/fileDiffs", raw)
    host = ls.require_host()
    live = host.session(p["sessionId"])
    wanted = p.get("toolCallId")
    pending: list[CallDiffs] = []
    for w in host.pending(live.id):
        conf = w.request.confirmation
        if wanted in (None, w.request.call.id) and conf is not None and conf.files:
            pending.append({"toolCallId": w.request.call.id, "files": _diffs_of(conf.files)})
    applied: list[CallDiffs] = [
        {"toolCallId": call_id, "files": _diffs_of(files)}
        for call_id, files in live.applied
        if wanted in (None, call_id)
    ]
    return {"pending": pending, "applied": applied}


@rpc
async def provide_value(ls: KaryiServer, raw: Any) -> Acknowledged:
    """`karyi/provideValue`: the value (a secret) the agent asked the user for."""
    from karyi.secrets.request import ValueAnswer

    p = checked("karyi/provideValue", raw)
    value = p.get("value")
    note = p.get("note") or ""
    answer = None if value is None else ValueAnswer(value, bool(p.get("save")), note)
    ls.require_host().provide_value(p["sessionId"], p["key"], answer)
    return {"ok": True}


@rpc
async def terminal_input(ls: KaryiServer, raw: Any) -> Acknowledged:
    """`karyi/terminalInput`: what the user types into the agent's terminal."""
    p = checked("karyi/terminalInput", raw)
    shell = ls.require_host().runtime.shell
    sid = p["sessionId"]
    if not shell.running(sid):
        raise RequestFailed(f"nothing is running in session {sid}'s terminal to type into")

    def mirror(text: str) -> None:
        ls.notify("karyi/terminalOutput", {"sessionId": sid, "data": text})

    ls.spawn(shell.send(sid, p["data"].encode(), mirror=mirror))
    return {"ok": True}
