"""JSON Schema from the attrs classes of `params.py`: what requests are checked against.

The schema is the wire's: camelCase names, `X | None` as `[type, "null"]` (or only left
out, with `nullable: False`), a `Literal` as an `enum`, an attrs class as an object.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any, Literal

import attrs

JSON = dict[str, Any]


def camel(name: str) -> str:
    """`session_id` -> `sessionId`."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def method_schema(cls: type) -> JSON:
    """A method's parameters: `properties` and `required` (the caller closes the object)."""
    body = _members(cls)
    return {k: v for k, v in body.items() if k in ("properties", "required")}


@functools.cache
def object_schema(cls: type, nullable: bool = False) -> JSON:
    """The schema of an attrs class used as a value."""
    out: JSON = {"type": ["object", "null"] if nullable else "object"}
    out.update(_members(cls))
    if getattr(cls, "closed", False):
        out["additionalProperties"] = False
    return out


def _members(cls: type) -> JSON:
    hints = typing.get_type_hints(cls)
    properties: JSON = {}
    required: list[str] = []
    for field in attrs.fields(cls):
        properties[camel(field.name)] = value_schema(hints[field.name], dict(field.metadata))
        if field.default is attrs.NOTHING:
            required.append(camel(field.name))
    out: JSON = {"properties": properties}
    if required:
        out["required"] = required
    return out


def value_schema(hint: Any, meta: dict[str, Any]) -> JSON:
    """The schema of one field's type (`meta`: the field's constraints)."""
    args = typing.get_args(hint)
    nullable = False
    if _is_union(hint) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        hint = rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007
        nullable = meta.get("nullable", True)
        args = typing.get_args(hint)
    if attrs.has(hint):
        return object_schema(hint, nullable)
    if typing.get_origin(hint) is Literal:
        return {"type": "string", "enum": list(args)}
    base = _base(hint)
    out: JSON = {"type": [base, "null"] if nullable else base}
    if base == "array" and args and args[0] is not Any:
        out["items"] = value_schema(args[0], {})
    if "min_length" in meta:
        out["minLength"] = meta["min_length"]
    if "pattern" in meta:
        out["pattern"] = meta["pattern"]
    if "max_items" in meta:
        out["maxItems"] = meta["max_items"]
    if "minimum" in meta:
        out["minimum"] = meta["minimum"]
    return out


def _is_union(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType)


def _base(hint: Any) -> str:
    origin = typing.get_origin(hint) or hint
    names = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array"}
    if origin in names:
        return names[origin]
    if origin is dict:
        return "object"
    raise TypeError(f"no JSON Schema for {hint!r}")
