"""One TLS context for every model client of the process.

Each session has its own provider and so its own SDK client; left to itself each SDK
client builds a TLS context and loads the system's certificate authorities into it
(hundreds of KB of OpenSSL memory, and the time to parse them). OpenSSL kept that memory
after the client was gone: a language server grew by about 0.9 MB per session opened.
A TLS context is safe to share, so every client takes this one; it is made as the SDKs'
own HTTP library makes it (`SSL_CERT_FILE` / `SSL_CERT_DIR` honoured, the platform's
trust store on macOS and Windows), once, at the first model client. `sdk_http_client`
is how every model client is given it.
"""

from __future__ import annotations

import functools
import ssl
from collections.abc import Callable
from typing import Any, TypeVar

Client = TypeVar("Client")


@functools.cache
def shared_tls_context() -> ssl.SSLContext:
    """The process's TLS context for model endpoints (made on first use)."""
    import httpx2

    return httpx2.create_ssl_context()


def sdk_http_client(default_client: Callable[..., Client]) -> Client:
    """An SDK's own default HTTP client (`openai.DefaultAsyncHttpxClient`, Anthropic's:
    each keeps its SDK's timeouts, connection limits and keep-alive) verifying with the
    shared context."""
    options: dict[str, Any] = {"verify": shared_tls_context()}
    return default_client(**options)
