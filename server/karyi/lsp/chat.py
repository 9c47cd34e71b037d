"""`karyi/chat`, `karyi/cancel`, `karyi/confirmTool`: turns and their permissions.

While a turn runs, every agent event goes to the client as a `karyi/turnUpdate`
notification `{sessionId, turnId, event}`; the request answers when the turn ends.
`$/cancelRequest` on the chat request and `karyi/cancel` both cancel the turn.
"""

from __future__ import annotations

from typing import Any

from karyi.agent.events import Event, TurnStarted
from karyi.agent.executor import Decision
from karyi.lsp.context import describe_context
from karyi.lsp.errors import rpc
from karyi.lsp.params import checked
from karyi.lsp.server import KaryiServer


async def run_chat(
    ls: KaryiServer,
    session_id: str | None,
    message: str,
    context: dict[str, Any] | None,
    extra_listener: Any = None,
) -> dict[str, Any]:
    """Run one turn, streaming `karyi/turnUpdate`s; the chat result."""
    host = ls.require_host()
    live = host.session(session_id)
    turn: dict[str, str] = {"id": ""}

    def listener(event: Event) -> None:
        if isinstance(event, TurnStarted):
            turn["id"] = event.turn_id
        ls.notify(
            "karyi/turnUpdate",
            {"sessionId": live.id, "turnId": turn["id"], "event": event.to_dict()},
        )
        if extra_listener is not None:
            extra_listener(event)

    context_text = describe_context(context, host.runtime.workspace.root)
    _, result = await host.chat(live.id, message, context=context_text, listener=listener)
    return {
        "sessionId": live.id,
        "turnId": result.turn_id,
        "stopReason": result.stop_reason,
        "finalAnswer": result.final_answer,
        "usage": {"inputTokens": result.input_tokens, "outputTokens": result.output_tokens},
    }


def decision_from(params: dict[str, Any]) -> Decision:
    """A confirmTool answer as the executor's Decision."""
    outcome = params["outcome"]
    feedback = params.get("feedback") or None
    if outcome == "allowOnce":
        return Decision(True)
    if outcome == "allowAlways":
        return Decision(True, remember=params.get("scope", "session"))
    return Decision(False, feedback)


def register(server: KaryiServer) -> None:
    """Add the chat handlers."""

    @server.feature("karyi/chat")
    @rpc
    async def chat(ls: KaryiServer, raw: Any) -> dict[str, Any]:
        p = checked("karyi/chat", raw)
        return await run_chat(ls, p.get("sessionId"), p["message"], p.get("context"))

    @server.feature("karyi/cancel")
    @rpc
    async def cancel(ls: KaryiServer, raw: Any) -> dict[str, Any]:
        p = checked("karyi/cancel", raw)
        return {"cancelled": ls.require_host().cancel(p["sessionId"])}

    @server.feature("karyi/confirmTool")
    @rpc
    async def confirm(ls: KaryiServer, raw: Any) -> dict[str, Any]:
        p = checked("karyi/confirmTool", raw)
        ls.require_host().answer(p["sessionId"], p["toolCallId"], decision_from(p))
        return {"ok": True}
