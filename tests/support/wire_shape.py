"""Whether a JSON value has the shape a wire type declares: the keys the generated
TypeScript names (lsp/wire/ts_types.py reads them the same way), each of its kind,
and no other key. tests/lsp check every custom request's result against
`karyi.lsp.wire.results.result_types()` with it."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

import attrs

from karyi.agent.events import Event
from karyi.lsp.wire.results import EXTENDS
from karyi.lsp.wire.ts_types import Member, members
from karyi.lsp.wire.typescript import FORMS

_SCALARS: dict[Any, tuple[type, ...]] = {
    str: (str,),
    int: (int,),
    float: (int, float),
    bool: (bool,),
}


def mismatches(value: Any, hint: Any, where: str = "result") -> list[str]:
    """What in `value` (plain JSON) does not fit `hint`, each as `where.path: problem`."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        return mismatches(value, hint.__metadata__[0], where)  # the wire's type
    if hint is Any or hint is object:
        return []
    if origin is Literal:
        return [] if value in args else [f"{where}: {value!r} is not one of {list(args)}"]
    if origin in (typing.Union, types.UnionType):
        if any(not mismatches(value, a, where) for a in args):
            return []
        return [f"{where}: {value!r} fits none of {hint}"]
    if hint is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    if origin in (list, tuple) or hint in (list, tuple):
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not an array"]
        return [
            p
            for i, v in enumerate(value)
            for p in mismatches(v, args[0] if args else Any, f"{where}[{i}]")
        ]
    if origin is dict or hint is dict:
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not an object"]
        inner = args[1] if args else Any
        return [p for k, v in value.items() for p in mismatches(v, inner, f"{where}.{k}")]
    if hint in _SCALARS:
        fits = isinstance(value, _SCALARS[hint]) and (hint is bool or not isinstance(value, bool))
        return [] if fits else [f"{where}: {value!r} is not a {hint.__name__}"]
    if isinstance(hint, type):
        return _object(value, FORMS.get(hint, hint), where)
    raise TypeError(f"no shape for {hint!r}")


def _keys(cls: type) -> list[Member]:
    camel = attrs.has(cls) or issubclass(cls, Event)
    known = {c.__name__: c for c in FORMS}
    own = list(members(cls, camel, known))
    base = EXTENDS.get(cls)
    return own + (_keys(base) if base is not None else [])


def _object(value: Any, cls: type, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: {value!r} is not an object ({cls.__name__})"]
    declared = {m.key: m for m in _keys(cls)}
    problems = [f"{where}.{k}: not a key of {cls.__name__}" for k in value if k not in declared]
    for key, member in declared.items():
        if key in value:
            problems += mismatches(value[key], member.hint, f"{where}.{key}")
        elif not member.optional:
            problems.append(f"{where}.{key}: missing ({cls.__name__})")
    return problems
