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
import typing
from typing import Any

import attrs

from karyi.core.type_walk import camel, is_union, members, walk, without_none

__all__ = ["camel", "is_union", "without_none"]  # settings/ and typed_json read them here

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


def wire_name(cls: type, field: attrs.Attribute[Any]) -> str:
    """A field's key in the JSON: its `name` metadata, else camelCase (the Python name
    itself in a class with `snake = True`)."""
    return _key(cls, field.name, camel(field.name), field.metadata)


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
    properties: JSON = {}
    required: list[str] = []
    out: JSON = {"properties": properties}
    for member in members(cls, camel_keys=True):  # core/type_walk.py
        schema = value_schema(member.hint, dict(member.metadata))
        if member.name == rest_field(cls):
            out["additionalProperties"] = schema["additionalProperties"]
            continue
        key = _key(cls, member.name, member.key, member.metadata)
        properties[key] = schema
        if not member.optional:
            required.append(key)
    if required:
        out["required"] = required
    return out


def _key(cls: type, name: str, camel_key: str, meta: Any) -> str:
    """A member's key: its `name` metadata, the Python name in a `snake` class, else
    camelCase."""
    named = meta.get("name")
    if isinstance(named, str):
        return named
    return name if getattr(cls, "snake", False) else camel_key


def value_schema(hint: Any, meta: dict[str, Any]) -> JSON:
    """The schema of one field's type (`meta`: the field's constraints)."""
    nullable = False
    if is_union(hint) and type(None) in typing.get_args(hint):
        hint = without_none(hint)
        nullable = meta.get("nullable", True)
    out = walk(hint, _Schema(meta, nullable))
    for key, value in meta.items():
        if key in _CONSTRAINTS:
            out[_CONSTRAINTS[key]] = value
        elif key == "items" and "items" in out:
            out["items"] = out.pop("items")  # where the metadata lists it
    return out


class _Schema:
    """A visitor of core/type_walk.py's grammar: the schema of a value of one form
    (`nullable`: it may be null too; a `Literal`'s enum never is)."""

    def __init__(self, meta: dict[str, Any], nullable: bool) -> None:
        self.meta, self.nullable = meta, nullable

    def _typed(self, base: str) -> JSON:
        return {"type": [base, "null"] if self.nullable else base}

    def object(self, cls: type) -> JSON:
        if not attrs.has(cls):
            return self.unknown()
        return dict(object_schema(cls, self.nullable))

    def literal(self, values: tuple[Any, ...]) -> JSON:
        return {"type": "string", "enum": list(values)}

    def scalar(self, kind: type) -> JSON:
        names = {str: "string", int: "integer", float: "number", bool: "boolean"}
        return self._typed(names[kind])

    def array(self, item: Any) -> JSON:
        out = self._typed("array")
        if item is not Any:
            out["items"] = value_schema(item, dict(self.meta.get("items", {})))
        return out

    def mapping(self, value: Any) -> JSON:
        out = self._typed("object")
        if value is not Any:
            out["additionalProperties"] = value_schema(value, {})
        return out

    def annotated(self, hint: Any, wire: Any) -> JSON:
        return walk(hint, self)

    def union(self, options: tuple[Any, ...]) -> JSON:
        return self.unknown()

    def null(self) -> JSON:
        return self.unknown()

    def unknown(self) -> JSON:
        raise TypeError("no JSON Schema for a value of any type or of several")
