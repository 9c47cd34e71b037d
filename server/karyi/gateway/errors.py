"""Every error the gateway answers with: a code, an HTTP status, one JSON envelope.

Tool failures carry the gateway's six codes (`core.errors.gateway_code` folds the finer
ones into them, the finer one is kept as `cause`); the request-level codes below are the
gateway's own. The status of each code is fixed here and documented in docs/gateway.md.
"""

from __future__ import annotations

from typing import Any

from karyi.core.errors import ErrorCode

TOOL_STATUS: dict[str, int] = {
    ErrorCode.INVALID_TOOL_INPUT: 400,
    ErrorCode.FORBIDDEN_PATH: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.CONFLICT: 409,
    # The tool ran and could not do it (an OS error, a timeout): the request was valid
    # and the server is fine, so neither 400 nor 5xx; 422 says "understood, not done".
    ErrorCode.TOOL_ERROR: 422,
    # The server's configuration refuses the tool: forbidden, like a refused path.
    ErrorCode.DISABLED: 403,
}
"""The gateway's tool error codes and their statuses (docs/gateway.md)."""

REQUEST_STATUS: dict[str, int] = {
    "invalid_request": 400,
    "unauthorized": 401,
    "forbidden_host": 403,
    "session_not_found": 404,
    "not_found": 404,
    "method_not_allowed": 405,
    "session_busy": 409,
    "permission_pending": 409,
    "not_pending": 409,
    "payload_too_large": 413,
    "unsupported_media_type": 415,
    "agent_unavailable": 503,
    "internal_error": 500,
}
"""The gateway's own codes (the request, the session, the server) and their statuses."""

STATUS: dict[str, int] = {**{str(k): v for k, v in TOOL_STATUS.items()}, **REQUEST_STATUS}
CODES: tuple[str, ...] = tuple(STATUS)


class GatewayError(Exception):
    """A request the gateway refuses: code, message, and anything else for the body."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    @property
    def status(self) -> int:
        """The HTTP status of the code."""
        return STATUS.get(self.code, 500)

    def body(self) -> dict[str, Any]:
        """`{"ok": false, "error": {"code", "message"}, ...}`."""
        return error_body(self.code, self.message, **self.extra)


def error_body(
    code: str, message: str, *, cause: str | None = None, **extra: Any
) -> dict[str, Any]:
    """The error envelope; `cause` is the finer code a tool failed with, when it differs."""
    error: dict[str, Any] = {"code": code, "message": message}
    if cause and cause != code:
        error["cause"] = cause
    return {"ok": False, "error": error, **{k: v for k, v in extra.items() if v is not None}}
