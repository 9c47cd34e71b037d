"""Pictures in `karyi/chat`, and the model picker: `karyi/models`, `karyi/modelState`,
`karyi/setModel`.

A client sends pictures as `{mimeType, data (base64), name}` objects; each is checked
by karyi.core.images (its bytes, not its word) before the turn starts, and a bad one is
an invalid-params error that names it. The picker lists the models on offer
(agent/models.py), switches a session's model from its next turn on, and reports how
much of the model's context window the conversation takes (docs/protocol.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from karyi.core.images import Image, ImageError, checked_count
from karyi.lsp.errors import rpc
from karyi.lsp.params import checked
from karyi.lsp.server import KaryiServer
from karyi.lsp.wire.results import ModelEntry, ModelList, ModelState

if TYPE_CHECKING:
    from karyi.agent.host import AgentHost, LiveSession


def checked_images(raw: list[Any]) -> tuple[Image, ...]:
    """The pictures of a chat request, checked (JsonRpcInvalidParams naming the bad one)."""
    try:
        return checked_count([Image.from_json(item) for item in raw])
    except ImageError as exc:
        raise JsonRpcInvalidParams(f"karyi/chat: images: {exc}") from None


def model_state(host: AgentHost, live: LiveSession | None) -> ModelState:
    """What the chat header shows: the session's model and its context use (a chat
    not started yet: the configured model, nothing used)."""
    if live is None:
        from karyi.agent.models import model_facts

        settings = host.runtime.settings
        window, images = model_facts(settings)
        return {
            "sessionId": None,
            "model": settings.model,
            "contextWindow": window,
            "contextUsed": 0,
            "acceptsImages": images,
        }
    used, window = host.context_use(live)
    provider = live.agent.provider
    return {
        "sessionId": live.id,
        "model": provider.label.removesuffix(" (replay)"),
        "contextWindow": window,
        "contextUsed": used,
        "acceptsImages": provider.accepts_images,
    }


@rpc
async def models(ls: KaryiServer, raw: Any) -> ModelList:
    """`karyi/models`: the models on offer, and the session's (no session is made
    without an id)."""
    p = checked("karyi/models", raw)
    host = ls.require_host()
    live = host.session(p["sessionId"]) if p.get("sessionId") else None
    entries, note = await host.catalog.models(host.runtime.settings, host.runtime.model_env())
    listed: list[ModelEntry] = [{"id": e.id, "source": e.source} for e in entries]
    return {**model_state(host, live), "models": listed, "note": note}


@rpc
async def model_state_of(ls: KaryiServer, raw: Any) -> ModelState:
    """`karyi/modelState`: the session's model and context use, without the list (what
    the chat header shows after each turn; asks no server)."""
    p = checked("karyi/modelState", raw)
    host = ls.require_host()
    return model_state(host, host.session(p["sessionId"]) if p.get("sessionId") else None)


@rpc
async def set_model(ls: KaryiServer, raw: Any) -> ModelState:
    """`karyi/setModel`: switch a session's model from its next turn on."""
    p = checked("karyi/setModel", raw)
    host = ls.require_host()
    live = await host.set_model(p.get("sessionId"), p["model"])
    return model_state(host, live)
