"""`karyi gateway`: serve the app with uvicorn on a socket bound before anything runs.

The socket is bound here (not by uvicorn) so the address actually listened on (port 0
picks a free one) is printed before the first request can arrive, and a refused bind
is a clear error. Non-loopback addresses need a token (config.check_bind).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import uvicorn

from karyi.agent.runtime import Runtime
from karyi.gateway.app import create_app
from karyi.gateway.config import GatewayConfig, check_bind
from karyi.llm.base import ProviderError
from karyi.secrets.redact import RedactingFilter
from karyi.settings import Settings


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); OSError when the address is unusable."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP spelled out: asyncio turns Nagle off (TCP_NODELAY) only on sockets
    # that say they are TCP; without it every keep-alive response whose headers and body
    # go out in two writes waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    """`http://host:port` of a bound socket."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _model_note(runtime: Runtime) -> str:
    try:
        provider = runtime.provider()
    except ProviderError as exc:
        return f"agent turns unavailable ({exc.message}); tools work"
    asyncio.run(provider.aclose())
    return f"model {provider.label}"


def _redact_server_logs(runtime: Runtime) -> None:
    """uvicorn's own log handlers (made by its Config) redact secrets like ours do."""
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(f, RedactingFilter) for f in handler.filters):
                handler.addFilter(RedactingFilter(lambda: runtime.vault.redactor))


def serve(
    root: Path,
    settings: Settings,
    host: str,
    port: int,
    *,
    out: TextIO,
    access_log: bool = False,
    folders: Sequence[Path] = (),
) -> None:
    """Serve until SIGINT/SIGTERM (raises ConfigError, or OSError for the address);
    `folders`: the workspace's folders after `root` (docs/context.md)."""
    config = GatewayConfig.from_settings(settings)
    check_bind(host, config)
    sock = bind(host, port)
    runtime = Runtime.open(root, settings, folders)
    app = create_app(runtime, config, watch=True)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            log_level="info" if access_log else "warning",
            access_log=access_log,
            lifespan="on",
            timeout_graceful_shutdown=5,
        )
    )
    _redact_server_logs(runtime)
    shell = "enabled" if settings.gateway.enable_shell else "disabled"
    token = "required" if config.token else "not required (loopback only)"
    print(
        f"karyi gateway: {url_of(sock)} · workspace {runtime.workspace.root} · "
        f"{_model_note(runtime)} · shell {shell} · token {token}",
        file=out,
        flush=True,
    )
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        runtime.close()
