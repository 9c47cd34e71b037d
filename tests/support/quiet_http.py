"""The test HTTP servers' base: a client hanging up is not an error worth a traceback.

Fault tests (timeouts, cancelled streams) close connections on purpose; the stdlib server
would print each reset to stderr and bury real failures in noise.
"""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietHTTPServer(ThreadingHTTPServer):
    """A `ThreadingHTTPServer` that ignores clients going away mid-request."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay silent about resets and broken pipes; report anything else as usual."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def serve_in_background(handler: type[BaseHTTPRequestHandler], **attrs: Any) -> QuietHTTPServer:
    """A server on a random loopback port, serving in a daemon thread; `attrs` are set on
    it for the handler to read (`self.server.<name>`). Stop it with `stop_serving`."""
    httpd = QuietHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    for name, value in attrs.items():
        setattr(httpd, name, value)
    # A short poll interval keeps `stop_serving()` (which waits for the next poll) quick.
    threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    ).start()
    return httpd


def stop_serving(httpd: QuietHTTPServer | None) -> None:
    """Stop a server `serve_in_background` started (None: it never started)."""
    if httpd is not None:
        httpd.shutdown()
        httpd.server_close()
