"""Parameter validation with jsonschema, phrased for a model that must fix its call.

A jsonschema error says "'src' is a required property"; the model needs "files[0]:
missing required parameter 'src' (string: the file's path)". Each message names the
parameter by its path and says what was expected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # jsonschema loads with the first validator: a turn may need none
    from jsonschema.exceptions import ValidationError

_JSON_TYPES = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}
MAX_MESSAGES = 5


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type."""
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _expected(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    text = kind if isinstance(kind, str) else " or ".join(kind) if kind else "a value"
    if "enum" in schema:
        text = "one of " + ", ".join(repr(v) for v in schema["enum"])
    desc = schema.get("description")
    return f"{text}: {desc}" if desc else str(text)


def describe_error(err: ValidationError, noun: str = "parameter") -> str:
    """One validation error as a sentence naming the parameter and the expectation."""
    error: Any = err  # jsonschema's stubs type schema/instance loosely
    where = _path(error.absolute_path)
    prefix = f"{where}: " if where else ""
    v = error.validator
    if v == "required":
        missing = [r for r in error.validator_value if r not in (error.instance or {})]
        props = error.schema.get("properties", {})
        parts = [f"'{m}' ({_expected(props.get(m, {}))})" for m in missing]
        return f"{prefix}missing required {noun} {', '.join(parts)}"
    if v == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        known = f"; expected only: {', '.join(allowed)}" if allowed else ""
        return f"{prefix}unknown {noun} {', '.join(repr(e) for e in extra)}{known}"
    if v == "type":
        return (
            f"{prefix}expected {_expected(error.schema)}, got {json_type(error.instance)} "
            f"{_short(error.instance)}"
        )
    if v == "enum":
        options = ", ".join(repr(o) for o in error.validator_value)
        return f"{prefix}expected one of {options}, got {_short(error.instance)}"
    if v in ("anyOf", "oneOf") and error.schema.get("x-any-of-message"):
        return f"{prefix}{error.schema['x-any-of-message']}"
    return f"{prefix}{error.message}"


class ParamValidator:
    """A compiled JSON Schema for one tool's parameters."""

    def __init__(self, schema: Mapping[str, Any], noun: str = "parameter") -> None:
        from jsonschema import Draft202012Validator

        Draft202012Validator.check_schema(schema)
        self._validator = Draft202012Validator(schema)
        self._noun = noun
        self._object = schema.get("type") == "object"

    def errors(self, value: Any) -> list[str]:
        """Every problem with `value`, most specific first, at most MAX_MESSAGES."""
        if self._object and not isinstance(value, Mapping):
            return [f"{self._noun}s must be an object, got {json_type(value)}"]
        found = sorted(
            self._validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path]
        )
        return [describe_error(e, self._noun) for e in found[:MAX_MESSAGES]]
