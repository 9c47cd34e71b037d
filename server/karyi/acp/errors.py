"""The errors ACP requests answer with, in one place (docs/acp.md#what-karyi-answers)."""

from __future__ import annotations

from acp import RequestError


def invalid(field: str, message: str) -> RequestError:
    """-32602 naming the field, as ACP specifies for bad parameters."""
    return RequestError.invalid_params({"field": field, "message": message})


def could_not_open(session_id: str, exc: Exception) -> RequestError:
    """-32603 for a session whose runtime could not be opened, saying why: the answer to
    every later request for it (docs/acp.md#start-up)."""
    return RequestError.internal_error(
        {"sessionId": session_id, "message": f"karyi could not open session {session_id}: {exc}"}
    )
