"""Parameters of Karyi's custom LSP methods: plain JSON in, checked against a schema.

pygls hands custom params over as nested `Object` namedtuples; they are turned back
into plain dicts and validated, so a malformed request gets a JSON-RPC "invalid
params" error that names the field and what was expected — the same wording as tool
parameter errors.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

if TYPE_CHECKING:
    from cattrs import Converter

    from karyi.core.schema import ParamValidator


_STR = {"type": "string", "minLength": 1}
_OPT_STR = {"type": ["string", "null"]}
_POSITION = {
    "type": "object",
    "properties": {
        "line": {"type": "integer", "minimum": 0},
        "character": {"type": "integer", "minimum": 0},
    },
    "required": ["line", "character"],
}
RANGE = {
    "type": "object",
    "properties": {"start": _POSITION, "end": _POSITION},
    "required": ["start", "end"],
}

_IMAGE = {
    "type": "object",
    "properties": {
        "mimeType": {
            "type": "string",
            "enum": ["image/png", "image/jpeg", "image/gif", "image/webp"],
        },
        "data": _STR,
        "name": {"type": "string"},
    },
    "required": ["data"],
    "additionalProperties": False,
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "karyi/chat": {
        "properties": {
            "sessionId": _OPT_STR,
            "message": _STR,
            "mode": {"type": "string", "enum": ["plan", "act"]},
            "plan": _OPT_STR,
            "images": {"type": "array", "items": _IMAGE, "maxItems": 8},
            "context": {
                "type": ["object", "null"],
                "properties": {
                    "uri": {"type": "string"},
                    "selection": RANGE,
                    "text": {"type": "string"},
                    "diagnostics": {"type": "array"},
                    "files": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
        "required": ["message"],
    },
    "karyi/cancel": {"properties": {"sessionId": _STR}, "required": ["sessionId"]},
    "karyi/models": {"properties": {"sessionId": _OPT_STR}},
    "karyi/modelState": {"properties": {"sessionId": _OPT_STR}},
    "karyi/setModel": {
        "properties": {
            "sessionId": _OPT_STR,
            "model": {"type": "string", "pattern": "^[A-Za-z][\\w-]*:.+$"},
        },
        "required": ["model"],
    },
    "karyi/setMode": {
        "properties": {
            "sessionId": _OPT_STR,
            "mode": {"type": "string", "enum": ["plan", "act"]},
            "plan": _OPT_STR,
        },
        "required": ["mode"],
    },
    "karyi/confirmTool": {
        "properties": {
            "sessionId": _STR,
            "toolCallId": _STR,
            "outcome": {
                "type": "string",
                "enum": ["allowOnce", "allowAlways", "reject", "rejectAlways"],
            },
            "scope": {"type": "string", "enum": ["session", "workspace", "user"]},
            "acceptedHunks": {"type": ["array", "null"], "items": {"type": "string"}},
            "feedback": _OPT_STR,
            "modifiedContent": {
                "type": ["array", "null"],
                "items": {
                    "type": "object",
                    "properties": {"uri": _STR, "text": {"type": "string"}},
                    "required": ["uri", "text"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["sessionId", "toolCallId", "outcome"],
    },
    "karyi/fileDiffs": {
        "properties": {"sessionId": _STR, "toolCallId": _OPT_STR},
        "required": ["sessionId"],
    },
    "karyi/provideValue": {
        "properties": {
            "sessionId": _STR,
            "key": _STR,
            "value": {"type": ["string", "null"]},
            "save": {"type": "boolean"},
            "note": {"type": ["string", "null"]},
        },
        "required": ["sessionId", "key"],
    },
    "karyi/sessions": {"properties": {}},
    "karyi/loadSession": {"properties": {"sessionId": _STR}, "required": ["sessionId"]},
    "karyi/deleteSession": {"properties": {"sessionId": _STR}, "required": ["sessionId"]},
    "karyi/checkpoints": {"properties": {"sessionId": _OPT_STR}},
    "karyi/restoreCheckpoint": {"properties": {"checkpointId": _STR}, "required": ["checkpointId"]},
    "karyi/tools": {"properties": {}},
    "karyi/rules": {"properties": {"sessionId": _OPT_STR}},
    "karyi/commands": {"properties": {}},
    "karyi/restartMcpServer": {"properties": {"name": _STR}, "required": ["name"]},
    "karyi/terminalInput": {
        "properties": {"sessionId": _STR, "data": {"type": "string"}},
        "required": ["sessionId", "data"],
    },
}


@functools.cache
def _validator(method: str) -> ParamValidator:
    from karyi.core.schema import ParamValidator  # jsonschema: loaded on the first request

    schema = {"type": "object", "additionalProperties": False, **SCHEMAS[method]}
    return ParamValidator(schema, noun="field")


def plain(value: Any) -> Any:
    """pygls `Object`s (namedtuples) and lists back to dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


@functools.cache
def _converter() -> Converter:
    from lsprotocol.converters import get_converter

    return get_converter()


def lsp_json(value: Any) -> Any:
    """An lsprotocol value (a Range, a list of Diagnostics) as the plain JSON the client
    sent, for command arguments that go back to the client."""
    return _converter().unstructure(value)


def checked(method: str, raw: Any) -> dict[str, Any]:
    """The params of `method` as a dict, or JsonRpcInvalidParams naming what was wrong."""
    params = plain(raw) if raw is not None else {}
    if not isinstance(params, dict):
        raise JsonRpcInvalidParams(f"{method}: params must be an object")
    errors = _validator(method).errors(params)
    if errors:
        raise JsonRpcInvalidParams(f"{method}: " + "; ".join(errors))
    return params
