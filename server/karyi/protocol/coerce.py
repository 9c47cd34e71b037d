"""Turning parameter text written in XML dialects into typed JSON values.

XML carries only text; the tool's JSON Schema says what each parameter should be, so
`"10"` becomes `10` where an integer is expected and stays `"10"` where a string is.
Only where no schema says anything does the blind rule apply (`blind`: booleans,
integers, floats, else the text), as the `toolcall` format defines it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from karyi.protocol.jsonscan import MAX_INT_DIGITS, JsonSlip, load_json

_INT = re.compile(rf"[+-]?\d{{1,{MAX_INT_DIGITS}}}\Z")
_FLOAT = re.compile(rf"(?=.{{1,{MAX_INT_DIGITS}}}\Z)[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?\Z")
"""Numbers longer than MAX_INT_DIGITS are not numbers here: text (untyped) or an error."""
_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


class CoerceError(ValueError):
    """A parameter's text cannot be read as the type its schema asks for."""


def blind(value: str) -> Any:
    """The `toolcall` format's rule for untyped values: booleans, integers, floats, else
    the text."""
    text = value.strip()
    if text in ("true", "false"):
        return text == "true"
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text) and math.isfinite(number := float(text)):
        return number
    return value


def _one(value: str, kind: str, schema: Mapping[str, Any], where: str) -> Any:
    text = value.strip()
    if kind == "string":
        return value
    if kind == "integer":
        if _INT.match(text):
            return int(text)
        if _FLOAT.match(text) and float(text).is_integer():
            return int(float(text))
        raise CoerceError(f"{where}: expected an integer, got {_shown(value)}")
    if kind == "number":
        if _INT.match(text):
            return int(text)
        if _FLOAT.match(text):
            if math.isfinite(number := float(text)):
                return number
            # 1e999 is not a number a tool can use (docs/protocol.md, "Limits")
            raise CoerceError(f"{where}: expected a finite number, got {_shown(value)}")
        raise CoerceError(f"{where}: expected a number, got {_shown(value)}")
    if kind == "boolean":
        low = text.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise CoerceError(f"{where}: expected a boolean (true or false), got {_shown(value)}")
    if kind == "null":
        if text in ("", "null"):
            return None
        raise CoerceError(f"{where}: expected null, got {_shown(value)}")
    if kind == "array":
        if text.startswith("["):
            try:
                parsed = load_json(text)
            except JsonSlip as exc:
                raise CoerceError(f"{where}: expected a JSON array, {_at(exc, '')}") from exc
            if isinstance(parsed, list):
                return parsed
        items = schema.get("items")
        return [coerce(value, items if isinstance(items, Mapping) else None, f"{where}[0]")]
    if kind == "object":
        try:
            parsed = load_json(text)
        except JsonSlip as exc:
            raise CoerceError(f"{where}: expected a JSON object, {_at(exc, 'character ')}") from exc
        if not isinstance(parsed, dict):
            raise CoerceError(f"{where}: expected a JSON object, got {type(parsed).__name__}")
        return parsed
    return value


def coerce(value: str, schema: Mapping[str, Any] | None, where: str) -> Any:
    """Read `value` as its schema's type; text where the schema gives no type."""
    if schema is None:
        return value
    kind = schema.get("type")
    if kind is None:
        return value
    # A malformed schema (say, from an MCP server) types nothing rather than crashing.
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    kinds = [k for k in kinds if isinstance(k, str)]
    if not kinds or "string" in kinds:
        return value
    errors: list[str] = []
    for k in kinds:
        try:
            return _one(value, k, schema, where)
        except CoerceError as exc:
            errors.append(str(exc))
    if len(errors) == 1:
        raise CoerceError(errors[0])
    raise CoerceError(f"{where}: expected one of {', '.join(kinds)}, got {_shown(value)}")


def property_schema(schema: Mapping[str, Any] | None, name: str) -> Mapping[str, Any] | None:
    """The schema of one parameter, or None when the tool's schema does not describe it."""
    if not schema:
        return None
    props = schema.get("properties")
    if isinstance(props, Mapping):
        sub = props.get(name)
        if isinstance(sub, Mapping):
            return sub
    return None


def is_array(schema: Mapping[str, Any] | None) -> bool:
    """True when the parameter's schema says it holds a list."""
    if not schema:
        return False
    kind = schema.get("type")
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def _at(exc: JsonSlip, unit: str) -> str:
    return f"{exc.reason} at {unit}{exc.pos}" if exc.pos is not None else exc.reason


def _shown(value: str, limit: int = 80) -> str:
    """A value quoted in an error, cut so a huge one does not flood the model's context."""
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}… ({len(value):,} characters)"
