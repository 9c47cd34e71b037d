"""The JSON-RPC side of the server: every request gets exactly one answer.

pygls reads each message with `structure_message` as a JSON object hook; when a
standard method's params do not fit lsprotocol's types it raises, and the reader only
logs it, so the request is never answered. `KaryiProtocol` turns such a request into
an InvalidParams (-32602) answer naming the field. It also answers requests that
arrive after `shutdown` (InvalidRequest, -32600), and lets `$/cancelRequest` on a
running turn cancel the turn instead of the request, so the request answers with
`stopReason: "cancelled"` (docs/protocol.md, "The language server"). Karyi's own
answers and notifications are plain JSON already and are sent as they are, not walked
again by pygls's converter (a long session's transcript is tens of thousands of values).
"""

from __future__ import annotations

import contextvars
import logging
import re
from dataclasses import dataclass
from typing import Any

import cattrs
from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCResponseMessage,
    MsgId,
    RPCRequest,
)

log = logging.getLogger(__name__)

CURRENT_REQUEST: contextvars.ContextVar[MsgId | None] = contextvars.ContextVar(
    "karyi_request", default=None
)
"""The id of the request whose handler is running (None in notifications)."""

INVALID_PARAMS = -32602
INVALID_REQUEST = -32600


@dataclass(frozen=True)
class Unreadable:
    """A request whose params could not be read: answered with `error`, never run."""

    id: MsgId
    method: str
    error: str


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def describe(exc: BaseException) -> str:
    """cattrs' errors as `field.path: problem`, with the JSON (camelCase) field names."""
    try:
        problems = (
            cattrs.transform_error(exc) if isinstance(exc, cattrs.BaseValidationError) else []
        )
    except Exception:
        problems = []
    out = []
    for problem in problems[:5]:
        what, _, where = problem.rpartition(" @ ")
        path = [_camel(p) for p in re.split(r"\.", where.removeprefix("$.params"))[1:] if p]
        field = ".".join(path) or "params"
        out.append(f"{field}: {what.replace('invalid value for type, ', '')}")
    return "; ".join(out) or f"params do not fit the method ({type(exc).__name__})"


class KaryiProtocol(LanguageServerProtocol):
    """pygls's LSP protocol, answering every request once (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.turns: dict[MsgId, str] = {}
        """Requests running a turn -> the turn's session (`$/cancelRequest` cancels it)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A message, or an `Unreadable` request when its params do not fit its method."""
        try:
            return super().structure_message(data)
        except Exception as exc:
            if isinstance(data, dict) and "id" in data and isinstance(data.get("method"), str):
                cause = exc.__cause__ or exc
                error = f"{data['method']}: {describe(cause)}"
                return Unreadable(data["id"], data["method"], error)
            raise

    def _serialize_message(self, data: Any) -> Any:
        """A Karyi answer or notification as it is (JSON already; an lsprotocol object
        inside it comes back here on its own); anything else through pygls."""
        kind = type(data)
        if kind is JsonRPCResponseMessage and isinstance(data.result, dict | list):
            return {"id": data.id, "jsonrpc": data.jsonrpc, "result": data.result}
        if kind is JsonRPCNotification and isinstance(data.params, dict):
            return {"method": data.method, "jsonrpc": data.jsonrpc, "params": data.params}
        return super()._serialize_message(data)

    def handle_message(self, message: Any) -> None:
        """Answer unreadable and late requests; hand the rest to pygls."""
        if isinstance(message, Unreadable):
            self._error(message.id, INVALID_PARAMS, message.error)
            return
        if self._shutdown and isinstance(message, RPCRequest) and message.method != types.EXIT:
            self._error(message.id, INVALID_REQUEST, f"{message.method}: the server is shut down")
            return
        super().handle_message(message)

    def _handle_request(self, msg_id: MsgId, method_name: str, params: Any) -> None:
        CURRENT_REQUEST.set(msg_id)
        super()._handle_request(msg_id, method_name, params)

    def _handle_cancel_notification(self, msg_id: MsgId) -> None:
        session = self.turns.get(msg_id)
        if session is None:
            super()._handle_cancel_notification(msg_id)
            return
        host = getattr(self._server, "host", None)
        if host is not None:
            host.cancel(session)  # the request then answers with stopReason "cancelled"

    def _error(self, msg_id: MsgId, code: int, message: str) -> None:
        log.info("answering request %s with error %s: %s", msg_id, code, message)
        self._send_response(msg_id, error=types.ResponseError(code=code, message=message))
