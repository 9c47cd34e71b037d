"""A fake model server: real HTTP on 127.0.0.1, speaking OpenAI and Anthropic.

Provider and agent tests talk to it through the real SDKs. It serves scripted
`Reply`s in order (streaming SSE, one flushed chunk per event, or a plain JSON body),
records every request it receives, and injects `Fault`s: an error status with
Retry-After, a connection reset mid-stream, garbage in the stream, a stream that
stalls until the client goes away, slow chunks.

    server.script(Reply(text="hi"), Reply(calls=[Call("read", {"path": "a"})]))
    server.fail_next(Fault(status=429, retry_after="0"))
    provider = ...(base_url=server.openai_url)
    ... server.requests[0].body["messages"]

It runs in a background thread (stdlib `ThreadingHTTPServer`, HTTP/1.1 with chunked
bodies), so the test's own event loop stays free.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from .quiet_http import QuietHTTPServer, serve_in_background, stop_serving
from .replies import (
    Event,
    Fault,
    Reply,
    anthropic_events,
    anthropic_message,
    anthropic_thinking_error,
    error_body,
    openai_events,
    openai_message,
    stream_error,
)

WAIT = 10.0  # generous bound for waiting on an event that should come at once


@dataclass
class Received:
    """One request the server got: path, headers (lower-case names), JSON body."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    finished: threading.Event = field(default_factory=threading.Event)
    disconnected: threading.Event = field(default_factory=threading.Event)

    @property
    def api(self) -> str:
        """`openai` or `anthropic`, from the path."""
        return "anthropic" if self.path.endswith("/messages") else "openai"


class FakeModelServer:
    """The server's script, faults and record; `start()`/`stop()` run it in a thread."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.faults: deque[Fault] = deque()
        self.requests: list[Received] = []
        self.chunk_delay = 0.0
        self.permits = threading.Semaphore(0)
        """What a paced reply (`Reply.paced`) may stream next, one event per permit."""
        self.listed_models: list[str] = ["fake-model"]
        """What `GET /v1/models` lists (the model picker's server list)."""
        self.closing = threading.Event()
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._httpd: QuietHTTPServer | None = None
        self.responder: Callable[[Received], Reply] | None = None
        """When set, answers every request instead of the script (called in the request's
        thread, so it may wait): for many clients at once whose order is not known."""

    @property
    def url(self) -> str:
        """`http://127.0.0.1:PORT`."""
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_url(self) -> str:
        """The base URL for the OpenAI SDK (`…/v1`)."""
        return f"{self.url}/v1"

    @property
    def anthropic_url(self) -> str:
        """The base URL for the Anthropic SDK (it appends `/v1/messages`)."""
        return self.url

    def script(self, *replies: Reply | str) -> None:
        """Queue replies; a plain string is a text reply."""
        with self._lock:
            self.replies.extend(Reply(text=r) if isinstance(r, str) else r for r in replies)

    def release(self, events: int) -> None:
        """Let a paced reply stream `events` more events."""
        for _ in range(events):
            self.permits.release()

    def fail_next(self, *faults: Fault) -> None:
        """Queue faults; each applies to one coming request, in order."""
        with self._lock:
            self.faults.extend(faults)

    def wait_requests(self, count: int, timeout: float = WAIT) -> list[Received]:
        """Block until `count` requests have arrived (for tests in other threads/loops)."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.requests) >= count, timeout):
                raise TimeoutError(f"expected {count} requests, got {len(self.requests)}")
            return list(self.requests)

    def start(self) -> FakeModelServer:
        """Listen on a random port and serve in a daemon thread."""
        self._httpd = serve_in_background(_Handler, fake=self)
        return self

    def stop(self) -> None:
        """Stop serving; stalled streams end."""
        self.closing.set()
        stop_serving(self._httpd)

    def _take(self, received: Received) -> tuple[Fault | None, Reply | None]:
        with self._arrived:
            self.requests.append(received)
            self._arrived.notify_all()
            fault = self.faults.popleft() if self.faults else None
            if fault is not None and not fault.streams:
                return fault, None
            responder = self.responder
        if responder is not None:
            return fault, responder(received)
        with self._arrived:
            reply = self.replies[0] if self.replies else None
            if reply is not None and fault is None:
                self.replies.popleft()
            return fault, reply


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeModel/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read `requests`, not logs."""

    @property
    def fake(self) -> FakeModelServer:
        return self.server.fake  # type: ignore[attr-defined,no-any-return]

    def do_GET(self) -> None:
        if self.path != "/v1/models":
            return self._json(404, error_body("openai", 404, f"no route {self.path}"))
        data = [
            {"id": m, "object": "model", "created": 0, "owned_by": "fake"}
            for m in self.fake.listed_models
        ]
        self._json(200, {"object": "list", "data": data})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        raw = self.rfile.read(length)
        headers = {k.lower(): v for k, v in self.headers.items()}
        body = json.loads(raw or b"{}")
        received = Received(self.path, headers, body)
        try:
            self._answer(received)
        finally:
            received.finished.set()

    def _answer(self, received: Received) -> None:
        fault, reply = self.fake._take(received)
        if received.path not in ("/v1/chat/completions", "/v1/messages"):
            return self._json(404, error_body(received.api, 404, f"no route {received.path}"))
        if fault is not None and fault.status is not None:
            return self._status_fault(received.api, fault)
        if reply is None:
            message = f"fake model server: no scripted reply for request #{len(self.fake.requests)}"
            return self._json(400, error_body(received.api, 400, message))
        if received.api == "anthropic":
            broken = anthropic_thinking_error(received.body)
            if broken is not None:
                return self._json(400, error_body("anthropic", 400, broken))
        model = str(received.body.get("model", "fake-model"))
        if not received.body.get("stream"):
            build = anthropic_message if received.api == "anthropic" else openai_message
            return self._json(200, build(reply, model))
        if received.api == "anthropic":
            events = anthropic_events(reply, model)
        else:
            options = received.body.get("stream_options") or {}
            events = openai_events(reply, model, bool(options.get("include_usage")))
        self._stream(received, events, fault, paced=reply.paced)

    def _status_fault(self, api: str, fault: Fault) -> None:
        assert fault.status is not None
        extra = {"retry-after": fault.retry_after} if fault.retry_after is not None else {}
        self._json(fault.status, error_body(api, fault.status, fault.message), extra)

    def _json(self, status: int, body: dict[str, Any], extra: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(
        self, received: Received, events: list[Event], fault: Fault | None, *, paced: bool = False
    ) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        cut = len(events) if fault is None else fault.after
        try:
            for event in events[:cut]:
                if paced and not self._permit():
                    return
                self._chunk(_sse(event))
                if self.fake.chunk_delay:
                    time.sleep(self.fake.chunk_delay)
            if fault is None:
                self._chunk(b"")
            else:
                self._fault_mid_stream(received, fault)
        except (BrokenPipeError, ConnectionResetError):
            received.disconnected.set()
            self.close_connection = True

    def _permit(self) -> bool:
        """Wait for the test to release the next event; False when the server stops."""
        while not self.fake.permits.acquire(timeout=0.05):
            if self.fake.closing.is_set():
                self.close_connection = True
                return False
        return True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def _fault_mid_stream(self, received: Received, fault: Fault) -> None:
        self.close_connection = True
        if fault.gate is not None:
            while not fault.gate.wait(0.05):
                if self.fake.closing.is_set():
                    return
        if fault.malformed:
            name = b"event: content_block_delta\n" if received.api == "anthropic" else b""
            self._chunk(name + b"data: {this is not json\n\n")
            self._chunk(b"")
        elif fault.reset:
            linger = struct.pack("ii", 1, 0)  # close with RST instead of FIN
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
            self.connection.close()
        elif fault.stall:
            if _wait_for_hangup(self.connection, self.fake.closing):
                received.disconnected.set()
        elif fault.close:
            self.connection.shutdown(socket.SHUT_WR)
        elif fault.error_event:
            self._chunk(stream_error(received.api, fault.message))
            self._chunk(b"")


def _sse(event: Event) -> bytes:
    name, data = event
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {data}\n\n".encode()


def _wait_for_hangup(conn: socket.socket, closing: threading.Event) -> bool:
    """Send nothing until the client closes the connection (True) or the server stops.

    There is no event for a peer's close without reading, so this polls the socket
    with select; each poll returns at once when the client closes.
    """
    while not closing.is_set():
        readable, _, _ = select.select([conn], [], [], 0.05)
        if readable:
            try:
                if conn.recv(1024) == b"":
                    return True
            except OSError:
                return True
    return False


def serve() -> Iterator[FakeModelServer]:
    """Start a server, yield it, stop it (the body of the pytest fixture)."""
    server = FakeModelServer().start()
    try:
        yield server
    finally:
        server.stop()
