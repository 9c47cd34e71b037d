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
from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

from karyi.core.typed_schema import is_union, rest_field, wire_name, without_none


def from_json(hint: Any, value: Any) -> Any:
    """`value` (JSON that fits `hint`'s schema) as a value of type `hint`."""
    return _converter(hint)(value)


def fields_from_json(cls: type, value: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of `cls` that the JSON object `value` gives."""
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object for {cls.__name__}, got {value!r}")
    fields, rest = _plan(cls)
    out = {name: convert(value[key]) for name, key, convert in fields if key in value}
    if rest is not None:
        name, convert, known = rest
        out[name] = convert({k: v for k, v in value.items() if k not in known})
    return out


Convert = Callable[[Any], Any]


@functools.cache
def _plan(
    cls: type,
) -> tuple[list[tuple[str, str, Convert]], tuple[str, Convert, frozenset[str]] | None]:
    """`cls`'s fields as (name, JSON key, converter), and its `rest` field: worked out once
    per class, since a tool reads its parameters at every call."""
    hints = typing.get_type_hints(cls)
    rest = rest_field(cls)
    fields = [
        (f.name, wire_name(cls, f), _converter(hints[f.name]))
        for f in attrs.fields(cls)
        if f.name != rest
    ]
    if rest is None:
        return fields, None
    return fields, (rest, _converter(hints[rest]), frozenset(key for _, key, _ in fields))


@functools.cache
def _converter(hint: Any) -> Convert:
    """The function that turns JSON fitting `hint` into a value of it (one per type)."""
    if is_union(hint):
        inner = _converter(without_none(hint))
        return lambda v: None if v is None else inner(v)
    if attrs.has(hint):
        return lambda v: hint(**fields_from_json(hint, v))
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list:
        item = _converter(args[0] if args else Any)
        return lambda v: [item(x) for x in v]
    if origin is dict:
        inner = _converter(args[1] if args else Any)
        return lambda v: {str(k): inner(x) for k, x in v.items()}
    if hint is float:
        return float
    if hint in (int, str, bool):
        return functools.partial(_exact, hint)
    if origin is Literal:
        return functools.partial(_literal, args)
    return _same


def _same(value: Any) -> Any:
    return value


def _exact(kind: type, value: Any) -> Any:
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)  # JSON Schema's "integer" takes 3.0
    if not isinstance(value, kind):
        raise TypeError(f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
    return value


def _literal(options: tuple[Any, ...], value: Any) -> Any:
    if value not in options:
        raise TypeError(f"expected one of {options!r}, got {value!r}")
    return value


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
