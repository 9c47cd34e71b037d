"""JSON Schema from attrs classes: one typed source for what a wire or a file may hold.

The LSP custom methods' parameters (lsp/wire/params.py) and the settings model
(settings/model.py) are attrs classes; this module derives the JSON Schema they are
checked against, and so do the built-in tools' parameters (tools/typed.py). The schema
is the wire's: camelCase names (a class with `snake = True` keeps the Python names; a
field's `name` metadata spells its own), `X | None` as `[type, "null"]` (or only left
out, with `nullable: False`), a `Literal` as an `enum`, an attrs class as an object,
`dict[str, X]` as an object of `X`. A field's metadata adds constraints: `min_length`,
`max_length`, `pattern`, `max_items`, `min_items`, `minimum`, `maximum`,
`exclusive_minimum`, `default` (the default the schema states), `description`, and
`items` (the constraints of a list's elements), in the order the metadata lists them (a
list's `items` right after its `type` unless listed). A class with `closed = True` takes
no other fields; one whose `rest` names a `dict[str, X]` field takes any other key as an
`X`, gathered in that field.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any, Literal

import attrs

JSON = dict[str, Any]

_CONSTRAINTS = {
    "min_length": "minLength",
    "max_length": "maxLength",
    "pattern": "pattern",
    "max_items": "maxItems",
    "min_items": "minItems",
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusive_minimum": "exclusiveMinimum",
    "default": "default",
    "description": "description",
}


def camel(name: str) -> str:
    """`session_id` -> `sessionId`."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def wire_name(cls: type, field: attrs.Attribute[Any]) -> str:
    """A field's key in the JSON: its `name` metadata, else camelCase (the Python name
    itself in a class with `snake = True`)."""
    named = field.metadata.get("name")
    if isinstance(named, str):
        return named
    return field.name if getattr(cls, "snake", False) else camel(field.name)


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


def rest_field(cls: type) -> str | None:
    """The name of the field that gathers a class's other keys (`rest`), if it has one."""
    name = getattr(cls, "rest", None)
    return name if isinstance(name, str) else None


def _members(cls: type) -> JSON:
    hints = typing.get_type_hints(cls)
    properties: JSON = {}
    required: list[str] = []
    out: JSON = {"properties": properties}
    for field in attrs.fields(cls):
        schema = value_schema(hints[field.name], dict(field.metadata))
        if field.name == rest_field(cls):
            out["additionalProperties"] = schema["additionalProperties"]
            continue
        properties[wire_name(cls, field)] = schema
        if field.default is attrs.NOTHING:
            required.append(wire_name(cls, field))
    if required:
        out["required"] = required
    return out


def value_schema(hint: Any, meta: dict[str, Any]) -> JSON:
    """The schema of one field's type (`meta`: the field's constraints)."""
    args = typing.get_args(hint)
    nullable = False
    if is_union(hint) and type(None) in args:
        hint = without_none(hint)
        nullable = meta.get("nullable", True)
        args = typing.get_args(hint)
    if attrs.has(hint):
        out = dict(object_schema(hint, nullable))
    elif typing.get_origin(hint) is Literal:
        out = {"type": "string", "enum": list(args)}
    else:
        base = _base(hint)
        out = {"type": [base, "null"] if nullable else base}
        if base == "array" and args and args[0] is not Any:
            out["items"] = value_schema(args[0], dict(meta.get("items", {})))
        if base == "object" and len(args) == 2 and args[1] is not Any:
            out["additionalProperties"] = value_schema(args[1], {})
    for key, value in meta.items():
        if key in _CONSTRAINTS:
            out[_CONSTRAINTS[key]] = value
        elif key == "items" and "items" in out:
            out["items"] = out.pop("items")  # where the metadata lists it
    return out


def is_union(hint: Any) -> bool:
    """Whether `hint` is `A | B` (either spelling)."""
    return typing.get_origin(hint) in (typing.Union, types.UnionType)


def without_none(hint: Any) -> Any:
    """`X | None` -> `X` (a union of the rest when there are several)."""
    rest = [a for a in typing.get_args(hint) if a is not type(None)]
    return rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007


def _base(hint: Any) -> str:
    origin = typing.get_origin(hint) or hint
    names = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array"}
    if origin in names:
        return names[origin]
    if origin is dict:
        return "object"
    raise TypeError(f"no JSON Schema for {hint!r}")
