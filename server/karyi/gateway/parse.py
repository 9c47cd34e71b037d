"""The request body, from bytes to an `AgentRequest`, with an error that says where.

Malformed JSON is reported with its line, column and offset; a wrong field with its
path (`biz_params.tool.input: expected a JSON object`). The body must be declared JSON.
NaN/Infinity and strings that are not valid Unicode (lone surrogates) are refused:
they are not JSON, and nothing downstream could write them.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from karyi.core.errors import ErrorCode
from karyi.gateway.errors import GatewayError
from karyi.gateway.models import AgentRequest, BizParams, PermissionAnswer, ToolRequest

_JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number"}
_JSON_TYPES.update({bool: "a boolean", type(None): "null"})


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


_STRICT_OBJECTS: dict[tuple[int | str, ...], type[BaseModel]] = {
    (): AgentRequest,
    ("biz_params",): BizParams,
    ("biz_params", "tool"): ToolRequest,
    ("biz_params", "permission"): PermissionAnswer,
}
_IN_JSON = {
    "model_type": "expected a JSON object",
    "dict_type": "expected a JSON object",
    "list_type": "expected a JSON array",
    "string_type": "expected a string",
    "bool_type": "expected true or false",
    "missing": "required",
}


def _message(error: ErrorDetails) -> str:
    """Pydantic's message in JSON's terms; an unknown field lists the known ones."""
    kind = error["type"]
    if kind == "extra_forbidden":
        model = _STRICT_OBJECTS.get(tuple(error["loc"][:-1]))
        known = ", ".join(model.model_fields) if model else ""
        return f"unknown field (expected only: {known})" if known else "unknown field"
    if kind == "list_type" and error["loc"][-1] == "content":
        return "expected a string or an array of text parts"
    return _IN_JSON.get(kind, error["msg"])


def _field(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(body)"


def _bad_text(value: Any, path: str) -> str | None:
    """The path of the first string (or key) that is not valid Unicode."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "(body)"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if (bad := _bad_text(key, where)) or (bad := _bad_text(item, where)):
                return bad
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if bad := _bad_text(item, f"{path}[{i}]"):
                return bad
    return None


def _json(raw: bytes) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GatewayError(
            "invalid_request", f"the body is not UTF-8 (invalid byte at offset {exc.start})"
        ) from None
    if not text.strip():
        raise GatewayError("invalid_request", "the body is empty: expected a JSON object")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise GatewayError(
            "invalid_request",
            f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno} "
            f"(character {exc.pos})",
        ) from None
    except ValueError as exc:
        raise GatewayError("invalid_request", f"malformed JSON: {exc}") from None
    except RecursionError:
        raise GatewayError("invalid_request", "malformed JSON: nested too deeply") from None


def check_media_type(header: str | None) -> None:
    """The body must say it is JSON: `application/json` (or `application/*+json`).

    Browsers send other types (`text/plain`, forms) cross-origin without asking the
    server first; insisting on JSON keeps web pages from posting to the gateway.
    """
    media = (header or "").split(";")[0].strip().lower()
    if media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    ):
        return
    given = f"Content-Type {header!r}" if header else "no Content-Type"
    raise GatewayError(
        "unsupported_media_type",
        f"{given}: send the body as JSON with `Content-Type: application/json` "
        "(curl: --json '{...}')",
    )


def parse_request(raw: bytes, media_type: str | None = "application/json") -> AgentRequest:
    """The validated request, or GatewayError `unsupported_media_type`, `invalid_request`
    or `invalid_tool_input`."""
    check_media_type(media_type)
    data = _json(raw)
    if not isinstance(data, dict):
        kind = _JSON_TYPES.get(type(data), type(data).__name__)
        raise GatewayError("invalid_request", f"the body must be a JSON object, not {kind}")
    if bad := _bad_text(data, ""):
        raise GatewayError(
            "invalid_request", f"{bad}: the string holds a lone surrogate (not valid Unicode)"
        )
    try:
        return AgentRequest.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        fields = [_field(tuple(e["loc"])) for e in errors]
        message = "; ".join(f"{f}: {_message(e)}" for f, e in zip(fields, errors, strict=True))
        in_tool = all(f.startswith("biz_params.tool") for f in fields)
        code = ErrorCode.INVALID_TOOL_INPUT.value if in_tool else "invalid_request"
        raise GatewayError(code, message) from None
