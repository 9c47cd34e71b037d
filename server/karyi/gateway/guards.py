"""Checks every request passes before any route sees it: the Host (without a token),
the bearer token (with one), then the size.

All are plain ASGI middleware so they act before a body is read: a request without
the token is refused before we buffer a byte of it, and a body over the limit is
refused as soon as its declared length (or, when streamed, its running length)
exceeds the limit, never after parsing it.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from karyi.gateway.config import is_loopback
from karyi.gateway.errors import STATUS, error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def send_error(
    send: Send, code: str, message: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """Answer with the gateway's error envelope."""
    body = json.dumps(error_body(code, message)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": STATUS[code],
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value)
    return None


def host_name(header: bytes) -> str:
    """The name in a Host header, without the port (`[::1]:8765` → `::1`)."""
    text = header.decode("latin-1").strip().lower()
    if text.startswith("["):
        return text[1 : text.find("]")] if "]" in text else text
    return text.rsplit(":", 1)[0] if text.count(":") == 1 else text


class LoopbackHost:
    """Without a token, only requests addressed to a loopback name are served.

    A web page can make a browser send requests to 127.0.0.1; with DNS rebinding it can
    even read the answers, but its requests then carry its own host name. Refusing every
    Host that is not `localhost` or a loopback address closes that door.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        header = _header(scope, b"host")
        if header is None or not is_loopback(host_name(header)):
            given = "no Host header" if header is None else f"Host {header.decode('latin-1')!r}"
            await send_error(
                send,
                "forbidden_host",
                f"{given}: without a token this gateway answers only requests addressed to "
                "localhost or a loopback address (set KARYI_GATEWAY_TOKEN to serve others)",
            )
            return None
        return await self.app(scope, receive, send)


class BearerAuth:
    """Every request must carry `Authorization: Bearer <token>` (compared in constant time)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = token.encode()

    def _refusal(self, header: bytes | None) -> str | None:
        """Why the header does not admit the request, or None when it does."""
        if header is None:
            return "the Authorization header is missing"
        scheme, _, given = header.strip().partition(b" ")
        if scheme.lower() != b"bearer":
            return "the Authorization header is not a Bearer token"
        if not hmac.compare_digest(given.strip(), self._expected):
            return "the bearer token is wrong"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        why = self._refusal(_header(scope, b"authorization"))
        if why is not None:
            await send_error(
                send,
                "unauthorized",
                f"this gateway needs `Authorization: Bearer <token>`: {why}",
                [(b"www-authenticate", b'Bearer realm="karyi"')],
            )
            return None
        return await self.app(scope, receive, send)


class BodyLimit:
    """Bodies over `limit` bytes get 413; the rest are read whole and handed on."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    def _too_large(self, size: str) -> str:
        return (
            f"the request body is {size} bytes; this gateway accepts at most {self.limit} "
            "(settings gateway.maxRequestBytes)"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            return await send_error(send, "payload_too_large", self._too_large(declared.decode()))
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = bytes(message.get("body", b""))
            size += len(chunk)
            if size > self.limit:
                return await send_error(
                    send, "payload_too_large", self._too_large(f"at least {size}")
                )
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()  # after the body: the disconnect, for streaming responses

        return await self.app(scope, replay, send)
