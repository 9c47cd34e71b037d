"""A local web server for the web tools' tests: real HTTP on 127.0.0.1, no network.

Routes are set per test: `server.route("/page", body, content_type=...)`, a redirect
(`server.redirect("/a", "/b")`), a JSON handler (`server.json_route(path, fn)` gets the
query and the JSON body), a huge body, or a body that never ends (`server.stall(path)`:
headers and a first chunk, then nothing until the client hangs up). Every request is
recorded in `server.requests`.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .quiet_http import QuietHTTPServer, serve_in_background, stop_serving

Handler = Callable[["Request"], tuple[int, dict[str, str], bytes]]


@dataclass
class Request:
    """One request as the server saw it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body or b"null")


@dataclass
class WebServer:
    """See the module docstring."""

    routes: dict[str, Handler] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    closing: threading.Event = field(default_factory=threading.Event)
    _httpd: QuietHTTPServer | None = None

    @property
    def url(self) -> str:
        """`http://127.0.0.1:PORT`."""
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def route(self, path: str, body: bytes | str, content_type: str = "text/html") -> None:
        """Serve `body` at `path`."""
        data = body.encode() if isinstance(body, str) else body
        self.routes[path] = lambda _r: (200, {"content-type": content_type}, data)

    def redirect(self, path: str, to: str, status: int = 302) -> None:
        """Redirect `path` to `to`."""
        self.routes[path] = lambda _r: (status, {"location": to}, b"")

    def json_route(self, path: str, fn: Callable[[Request], Any], status: int = 200) -> None:
        """Answer `path` with `fn(request)` as JSON."""
        self.routes[path] = lambda r: (
            status,
            {"content-type": "application/json"},
            json.dumps(fn(r)).encode(),
        )

    def stall(self, path: str) -> None:
        """A body that starts and never ends."""
        self.routes[path] = lambda _r: (-1, {}, b"")

    def start(self) -> WebServer:
        """Serve in a daemon thread."""
        self._httpd = serve_in_background(_Handler, web=self)
        return self

    def stop(self) -> None:
        """Stop serving; stalled bodies end."""
        self.closing.set()
        stop_serving(self._httpd)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _serve(self) -> None:
        web: WebServer = self.server.web  # type: ignore[attr-defined]
        parts = urlsplit(self.path)
        length = int(self.headers.get("content-length") or 0)
        request = Request(
            self.command,
            parts.path,
            parse_qs(parts.query),
            {k.lower(): v for k, v in self.headers.items()},
            self.rfile.read(length) if length else b"",
        )
        web.requests.append(request)
        handler = web.routes.get(parts.path)
        if handler is None:
            return self._send(404, {"content-type": "text/plain"}, b"not found")
        status, headers, body = handler(request)
        if status == -1:
            return self._stall(web)
        self._send(status, headers, body)

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)

    def _stall(self, web: WebServer) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/plain")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        try:
            self.wfile.write(b"5\r\nstart\r\n")
            self.wfile.flush()
            # Nothing more: wait (without spinning) until the test ends the server.
            web.closing.wait()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


def serve() -> Iterator[WebServer]:
    """Start a server, yield it, stop it (the body of the pytest fixture)."""
    server = WebServer().start()
    try:
        yield server
    finally:
        server.stop()


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF showing `text` in Helvetica (written by hand: offsets computed)."""
    stream = f"BT /F1 18 Tf 40 700 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (n, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
