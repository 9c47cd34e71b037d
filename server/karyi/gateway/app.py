"""The ASGI app: routes, error envelopes, the token and size guards, the schema.

`create_app(runtime)` builds it over a `Runtime`, so tests run it in-process (an httpx
ASGI transport) and `karyi gateway` serves it with uvicorn. Handlers are thin: they
parse, ask the `Gateway`, and shape the answer.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from karyi import __version__
from karyi.agent.runtime import Runtime
from karyi.gateway.background_tasks import install_task_routes
from karyi.gateway.config import GatewayConfig
from karyi.gateway.errors import GatewayError, error_body
from karyi.gateway.guards import BearerAuth, BodyLimit, LoopbackHost
from karyi.gateway.models import AgentRequest, Health, ToolInfo
from karyi.gateway.openapi import build_schema, docs_page
from karyi.gateway.parse import parse_request
from karyi.gateway.service import Gateway
from karyi.gateway.turns import Finished, Paused, Shown, Turn
from karyi.gateway.views import pending_response, turn_response
from karyi.llm.base import Provider

log = logging.getLogger(__name__)


class JSON(JSONResponse):
    """UTF-8 JSON; a string that cannot be UTF-8 (from a file on disk) is \\u-escaped."""

    def render(self, content: Any) -> bytes:
        """See `JSONResponse.render`."""
        try:
            return json.dumps(content, ensure_ascii=False, default=str).encode("utf-8")
        except UnicodeEncodeError:
            return json.dumps(content, ensure_ascii=True, default=str).encode("ascii")


def _fail(error: GatewayError) -> JSON:
    return JSON(error.body(), status_code=error.status)


def _sse(kind: str, data: Any, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    try:
        text = json.dumps(data, ensure_ascii=False, default=str)
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, ensure_ascii=True, default=str)
    return f"{head}event: {kind}\ndata: {text}\n\n".encode()


def _last_event_id(request: Request) -> int | None:
    """The SSE `Last-Event-ID` header a reconnecting client sends (None: absent)."""
    value = request.headers.get("last-event-id")
    if value is None:
        return None
    value = value.strip()
    if not (value.isascii() and value.isdigit() and len(value) <= 18):
        raise GatewayError(
            "invalid_request", f"Last-Event-ID: expected an event id (a number), got {value!r}"
        )
    return int(value)


def _final(turn: Turn, step: Finished | Paused) -> tuple[int, str, dict[str, Any]]:
    """(status, SSE event name, body) for how a response ends."""
    if isinstance(step, Paused):
        return 202, "pending_permission", pending_response(turn, step.pending)
    if step.result is None:
        message = f"the turn failed inside the gateway: {step.crash}"
        return 500, "error", error_body("internal_error", message)
    return 200, "result", turn_response(turn, step.result)


async def _stream(turn: Turn, after: int | None) -> AsyncIterator[bytes]:
    try:
        async for step in turn.follow(after):
            if isinstance(step, Shown):
                yield _sse(step.event.kind, step.event.to_dict(), step.id)
            else:
                _, kind, body = _final(turn, step)
                yield _sse(kind, body)
    except Exception as exc:
        log.exception("streaming session %s failed", turn.session_id)
        yield _sse("error", error_body("internal_error", f"{type(exc).__name__}: {exc}"))


async def _respond(turn: Turn, stream: bool, after: int | None = None) -> Response:
    if stream:
        headers = {"cache-control": "no-store", "x-accel-buffering": "no"}
        return StreamingResponse(
            _stream(turn, after), media_type="text/event-stream", headers=headers
        )
    status, _, body = _final(turn, await turn.outcome(after))
    return JSON(body, status_code=status)


async def process(
    gateway: Gateway, request: AgentRequest, last_event_id: int | None = None
) -> Response:
    """Dispatch one validated request."""
    biz = request.biz_params
    asked = [n for n in ("tool", "permission", "cancel", "follow") if biz and getattr(biz, n)]
    if len(asked) > 1:
        names = " and ".join(f"biz_params.{n}" for n in asked)
        raise GatewayError("invalid_request", f"{names}: give only one of them")
    if biz and biz.tool:
        reply = await gateway.run_tool(request)
        return JSON(reply.body, status_code=reply.status)
    if biz and biz.permission:
        if request.input:
            raise GatewayError(
                "invalid_request", "input: must be empty when answering biz_params.permission"
            )
        return await _respond(gateway.answer(request), request.stream)
    if biz and biz.follow and request.input:
        raise GatewayError("invalid_request", "input: must be empty with biz_params.follow")
    if biz and biz.cancel:
        return await _respond(gateway.cancel(request), request.stream)
    if biz and biz.follow:
        return await _respond(gateway.follow(request), request.stream, last_event_id)
    return await _respond(gateway.start_turn(request), request.stream)


def _install_handlers(app: FastAPI) -> None:
    @app.exception_handler(GatewayError)
    async def gateway_error(_request: Request, exc: GatewayError) -> Response:
        return _fail(exc)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> Response:
        status = exc.status_code
        code = {404: "not_found", 405: "method_not_allowed"}.get(status, "invalid_request")
        message = "no such route" if status == 404 else str(exc.detail)
        return JSON(error_body(code, message), status, headers=exc.headers)

    @app.exception_handler(Exception)
    async def crash(_request: Request, exc: Exception) -> Response:
        log.exception("request failed")
        return JSON(error_body("internal_error", f"{type(exc).__name__}: {exc}"), 500)


def create_app(
    runtime: Runtime,
    config: GatewayConfig | None = None,
    *,
    provider_factory: Callable[[], Provider] | None = None,
    close_on_shutdown: bool = True,
    watch: bool = False,
) -> FastAPI:
    """The gateway app over `runtime` (`app.state.gateway` is its `Gateway`).

    Its lifespan (run by uvicorn, not by in-process test clients) starts the file
    watcher when `watch` and closes the gateway at shutdown when `close_on_shutdown`.
    """
    config = config or GatewayConfig.from_settings(runtime.settings)
    gateway = Gateway(runtime, provider_factory=provider_factory)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        documents = runtime.workspace.documents
        if watch:
            await documents.start_watching()
        try:
            yield
        finally:
            if watch:
                await documents.stop_watching()
            if close_on_shutdown:
                await gateway.close()

    app = FastAPI(
        title="Karyi gateway",
        version=__version__,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.gateway = gateway
    _install_handlers(app)

    _install_routes(app, gateway)
    install_task_routes(app, gateway)
    app.add_middleware(BodyLimit, limit=config.max_request_bytes)
    if config.token is not None:
        app.add_middleware(BearerAuth, token=config.token)
    else:
        app.add_middleware(LoopbackHost)
    return app


def _install_routes(app: FastAPI, gateway: Gateway) -> None:
    """The routes: the one endpoint, the tool list, health, the docs and the schema."""

    @app.post("/agent/process", summary="Run a tool or an agent turn")
    async def agent_process(request: Request) -> Response:
        media = request.headers.get("content-type")
        parsed = parse_request(await request.body(), media)
        follow = parsed.biz_params is not None and parsed.biz_params.follow
        return await process(gateway, parsed, _last_event_id(request) if follow else None)

    @app.get("/agent/tools", summary="The tools biz_params.tool can name")
    async def agent_tools() -> list[ToolInfo]:
        tools = gateway.tools
        return [
            ToolInfo(
                name=t.name,
                description=t.description,
                parameters=t.parameters,
                enabled=tools.enabled(t),
            )
            for t in tools.tools()
        ]

    @app.get("/health", summary="Liveness and version")
    async def health() -> Health:
        return Health(ok=True, version=__version__)

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(docs_page(app.openapi()))

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_schema(app, gateway.tools.tools())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
