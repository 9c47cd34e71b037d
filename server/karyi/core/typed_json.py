"""attrs values to and from their JSON: camelCase keys, nothing else to configure.

The companion of typed_schema.py: JSON that passed the schema derived from a class
becomes an instance of it (`from_json`), and an instance becomes the JSON again
(`to_json`). A key left out takes the field's default; a field that may only be left
out (`nullable: False`) is left out when None; a class's `rest` field gathers the
other keys of its object and is written back flat.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from karyi.core.typed_schema import is_union, rest_field, wire_name, without_none


def from_json(hint: Any, value: Any) -> Any:
    """`value` (JSON that fits `hint`'s schema) as a value of type `hint`."""
    if is_union(hint):
        return None if value is None else from_json(without_none(hint), value)
    if attrs.has(hint):
        return hint(**fields_from_json(hint, value))
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list:
        return [from_json(args[0] if args else Any, v) for v in value]
    if origin is dict:
        inner = args[1] if args else Any
        return {str(k): from_json(inner, v) for k, v in value.items()}
    if hint is float:
        return float(value)
    if hint is int and isinstance(value, float) and value.is_integer():
        return int(value)  # JSON Schema's "integer" takes 3.0
    if hint in (int, str, bool) and not isinstance(value, hint):
        raise TypeError(f"expected {hint.__name__}, got {type(value).__name__} {value!r}")
    if origin is Literal and value not in args:
        raise TypeError(f"expected one of {args!r}, got {value!r}")
    return value


def fields_from_json(cls: type, value: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of `cls` that the JSON object `value` gives."""
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object for {cls.__name__}, got {value!r}")
    hints, names = _shape(cls)
    rest = rest_field(cls)
    out: dict[str, Any] = {}
    for field in attrs.fields(cls):
        if field.name == rest:
            extra = {k: v for k, v in value.items() if k not in names.values()}
            out[field.name] = from_json(hints[field.name], extra)
        elif names[field.name] in value:
            out[field.name] = from_json(hints[field.name], value[names[field.name]])
    return out


@functools.cache
def _shape(cls: type) -> tuple[dict[str, Any], dict[str, str]]:
    """`cls`'s field types and JSON keys, by field (read once: a tool reads its
    parameters at every call)."""
    rest = rest_field(cls)
    names = {f.name: wire_name(cls, f) for f in attrs.fields(cls) if f.name != rest}
    return typing.get_type_hints(cls), names


def to_json(value: Any) -> Any:
    """An attrs value (or lists and dicts of them) as JSON."""
    if attrs.has(type(value)):
        out: dict[str, Any] = {}
        rest = rest_field(type(value))
        for field in attrs.fields(type(value)):
            item = getattr(value, field.name)
            if field.name == rest:
                out.update(to_json(item))
            elif item is not None or field.metadata.get("nullable", True):
                out[wire_name(type(value), field)] = to_json(item)
        return out
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    if isinstance(value, Mapping):
        return {k: to_json(v) for k, v in value.items()}
    return value
