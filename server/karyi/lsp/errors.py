"""JSON-RPC errors for Karyi's methods, and one wrapper that maps core failures to them."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from karyi.agent.checkpoints import CheckpointError
from karyi.agent.host import NotPending, SessionBusy
from karyi.agent.sessions import SessionNotFound
from karyi.llm.base import ProviderError

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")


class RequestFailed(JsonRpcException):
    """LSP's RequestFailed (-32803): the request was valid but could not be carried out."""

    CODE = -32803


class ServerNotReady(JsonRpcException):
    """A Karyi method arrived before `initialize` set up a workspace."""

    CODE = -32002


def rpc(handler: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Turn core exceptions into precise JSON-RPC errors; log anything unexpected."""

    @functools.wraps(handler)
    async def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await handler(*args, **kwargs)
        except JsonRpcException:
            raise
        except (SessionNotFound, NotPending) as exc:
            raise JsonRpcInvalidParams(str(exc).strip("'\"")) from None
        except (SessionBusy, CheckpointError) as exc:
            raise RequestFailed(str(exc)) from None
        except ProviderError as exc:
            raise RequestFailed(f"model provider: {exc.message}", data={"kind": exc.kind}) from None
        except Exception as exc:
            log.exception("%s failed", handler.__name__)
            raise RequestFailed(f"internal error: {type(exc).__name__}: {exc}") from None

    return wrapped
