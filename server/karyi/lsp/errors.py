"""JSON-RPC errors for Karyi's methods, and one wrapper that maps core failures to them."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")


class RequestFailed(JsonRpcException):
    """LSP's RequestFailed (-32803): the request was valid but could not be carried out."""

    CODE = -32803


class ServerNotReady(JsonRpcException):
    """A Karyi method arrived before `initialize` set up a workspace."""

    CODE = -32002


def translate(exc: Exception, where: str) -> JsonRpcException:
    """The JSON-RPC error for a core exception (imported here, not at start-up)."""
    from karyi.agent.host import NotPending, NoTurnRunning, SessionBusy
    from karyi.agent.review.edit_answer import InvalidEditAnswer
    from karyi.agent.session.checkpoints import CheckpointError
    from karyi.agent.session.rewind import HistoryError
    from karyi.agent.session.store import SessionNotFound
    from karyi.core.storage import StorageUnavailable
    from karyi.llm.base import ProviderError

    if isinstance(exc, SessionNotFound | NotPending):
        return JsonRpcInvalidParams(str(exc).strip("'\""))
    if isinstance(exc, InvalidEditAnswer):
        return JsonRpcInvalidParams(f"karyi/confirmTool: {exc}")
    if isinstance(exc, SessionBusy | NoTurnRunning | CheckpointError | HistoryError):
        return RequestFailed(str(exc))
    if isinstance(exc, ProviderError):
        return RequestFailed(f"model provider: {exc.message}", data={"kind": exc.kind})
    if isinstance(exc, StorageUnavailable):
        return RequestFailed(str(exc))
    log.exception("%s failed", where, exc_info=exc)
    return RequestFailed(
        f"internal error in {where}: {exc or 'no message'} (the log has the details)"
    )


def _redacted(exc: JsonRpcException, server: object) -> JsonRpcException:
    """The error with every secure variable's value replaced by its placeholder: an
    error message never carries a secret (docs/security.md, "Secure variables")."""
    host = getattr(server, "host", None)
    if host is None:
        return exc
    redact = host.runtime.vault.redactor.redact
    message = redact(exc.message)
    if message != exc.message:
        exc.message = message
        exc.args = (message, *exc.args[1:])
    return exc


def rpc(handler: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Turn core exceptions into precise JSON-RPC errors; log anything unexpected."""

    @functools.wraps(handler)
    async def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        server = args[0] if args else None
        wait = getattr(server, "ready", None)
        if wait is not None:
            await wait()
        try:
            return await handler(*args, **kwargs)
        except JsonRpcException as exc:
            raise _redacted(exc, server) from None
        except Exception as exc:
            raise _redacted(translate(exc, handler.__name__), server) from None

    return wrapped
