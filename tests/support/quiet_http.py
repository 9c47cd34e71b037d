"""The test HTTP servers' base: a client hanging up is not an error worth a traceback.

Fault tests (timeouts, cancelled streams) close connections on purpose; the stdlib server
would print each reset to stderr and bury real failures in noise.
"""

from __future__ import annotations

import sys
from http.server import ThreadingHTTPServer
from typing import Any


class QuietHTTPServer(ThreadingHTTPServer):
    """A `ThreadingHTTPServer` that ignores clients going away mid-request."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay silent about resets and broken pipes; report anything else as usual."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)
