"""The JSON bodies of turns: an ended turn, a paused one, a waiting call (see models.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

from karyi.agent.host import PendingApproval
from karyi.agent.turn.spec import TurnResult
from karyi.gateway.turns import Turn
from karyi.tools.base import Confirmation

FILE_FIELDS = (
    "uri",
    "path",
    "original",
    "proposed",
    "unified",
    "added",
    "removed",
    "created",
    "deleted",
)


def confirmation_view(confirmation: Confirmation | None) -> dict[str, Any] | None:
    """A confirmation in the gateway's JSON form (per-file previews included)."""
    if confirmation is None:
        return None
    body = {k: v for k, v in dataclasses.asdict(confirmation).items() if k != "files"}
    files: list[dict[str, Any]] = [dict(f.to_json()) for f in confirmation.files]
    body["files"] = [{k: f[k] for k in FILE_FIELDS} for f in files]
    return body


def pending_call(pending: PendingApproval) -> dict[str, Any]:
    """A waiting call: its id (answer with it), tool, parameters and what to show."""
    request = pending.request
    confirmation = request.confirmation
    return {
        "tool_call_id": request.call.id,
        "tool": request.call.name,
        "params": request.call.params,
        "description": request.description,
        "reason": request.reason,
        "confirmation": confirmation_view(confirmation),
    }


def pending_response(turn: Turn, pending: list[PendingApproval]) -> dict[str, Any]:
    """A turn paused on permissions."""
    return {
        "status": "pending_permission",
        "session_id": turn.session_id,
        "turn_id": turn.turn_id,
        "pending": [pending_call(p) for p in pending],
    }


def turn_response(turn: Turn, result: TurnResult) -> dict[str, Any]:
    """A turn that ended: the answer (also as an assistant message), why, and usage."""
    answer = result.final_answer
    failure = turn.failure
    return {
        "status": "completed",
        "session_id": turn.session_id,
        "turn_id": result.turn_id,
        "stop_reason": result.stop_reason,
        "answer": answer,
        "steps": result.steps,
        "usage": {
            "input_tokens": result.input_tokens,
            "output_tokens": result.output_tokens,
            "cached_tokens": result.cached_tokens,
        },
        "output": [
            {
                "role": "assistant",
                "type": "message",
                "content": [{"type": "text", "text": answer}],
            }
        ]
        if answer
        else [],
        "error": {"kind": failure.error_kind, "message": failure.message} if failure else None,
    }
