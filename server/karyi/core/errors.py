"""The machine codes a tool result can fail with, shared by every front end.

The first six are the gateway's codes (docs/gateway.md); the rest name failures the
gateway folds into them (see `gateway_code`). A code tells a program what happened; the message that
goes with it tells the model and the user what to do about it.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Why a call produced no useful result."""

    INVALID_TOOL_INPUT = "invalid_tool_input"
    FORBIDDEN_PATH = "tool_forbidden_path"
    NOT_FOUND = "tool_not_found"
    CONFLICT = "tool_conflict"
    TOOL_ERROR = "tool_error"
    DISABLED = "tool_disabled"
    UNKNOWN_TOOL = "unknown_tool"
    MALFORMED_CALL = "malformed_call"
    DUPLICATE_ID = "duplicate_id"
    PERMISSION_DENIED = "permission_denied"
    REJECTED = "rejected"
    CANCELLED = "cancelled"
    BINARY_FILE = "binary_file"
    TIMEOUT = "timeout"


_GATEWAY = {
    ErrorCode.UNKNOWN_TOOL: ErrorCode.NOT_FOUND,
    ErrorCode.MALFORMED_CALL: ErrorCode.INVALID_TOOL_INPUT,
    ErrorCode.DUPLICATE_ID: ErrorCode.INVALID_TOOL_INPUT,
    ErrorCode.PERMISSION_DENIED: ErrorCode.DISABLED,
    ErrorCode.REJECTED: ErrorCode.DISABLED,
    ErrorCode.BINARY_FILE: ErrorCode.INVALID_TOOL_INPUT,
    ErrorCode.CANCELLED: ErrorCode.TOOL_ERROR,
    ErrorCode.TIMEOUT: ErrorCode.TOOL_ERROR,
}


def gateway_code(code: str) -> str:
    """Fold any code into the gateway's six (docs/gateway.md)."""
    try:
        return _GATEWAY.get(ErrorCode(code), ErrorCode(code)).value
    except ValueError:
        return ErrorCode.TOOL_ERROR.value


class ToolFailure(Exception):
    """Raised inside a tool to end the call with a precise error result."""

    def __init__(self, code: ErrorCode | str, message: str) -> None:
        super().__init__(message)
        self.code = str(code)
        self.message = message


class ManagedSettingsError(Exception):
    """The organisation's managed settings file is broken: Karyi must not start without
    its policy (docs/security.md#managed-settings). Every front end stops on it."""

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(f"the organisation's settings file {path} {reason}; Karyi will not start")
        self.path = path
        self.reason = reason
