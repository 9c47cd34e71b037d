"""Whether a JSON value has the shape a wire type declares: the keys the generated
TypeScript names (core/type_walk.py reads them for both), each of its kind, and no
other key. tests/lsp check every custom request's result against
`karyi.lsp.wire.results.result_types()` with it."""

from __future__ import annotations

from typing import Any

import attrs

from karyi.agent.events import Event
from karyi.core.type_walk import Member, members, walk
from karyi.lsp.wire.results import EXTENDS
from karyi.lsp.wire.typescript import FORMS

_SCALARS: dict[Any, tuple[type, ...]] = {
    str: (str,),
    int: (int,),
    float: (int, float),
    bool: (bool,),
}


def mismatches(value: Any, hint: Any, where: str = "result") -> list[str]:
    """What in `value` (plain JSON) does not fit `hint`, each as `where.path: problem`."""
    return walk(hint, _Fit(value, where))


class _Fit:
    """A visitor of the type grammar: what in one value does not fit the form."""

    def __init__(self, value: Any, where: str) -> None:
        self.value, self.where = value, where

    def annotated(self, hint: Any, wire: Any) -> list[str]:
        return mismatches(self.value, wire, self.where)  # the wire's type

    def literal(self, values: tuple[Any, ...]) -> list[str]:
        fits = self.value in values
        return [] if fits else [f"{self.where}: {self.value!r} is not one of {list(values)}"]

    def union(self, options: tuple[Any, ...]) -> list[str]:
        if any(not mismatches(self.value, a, self.where) for a in options):
            return []
        names = " | ".join(getattr(a, "__name__", str(a)) for a in options)
        return [f"{self.where}: {self.value!r} fits none of {names}"]

    def null(self) -> list[str]:
        return [] if self.value is None else [f"{self.where}: {self.value!r} is not null"]

    def unknown(self) -> list[str]:
        return []

    def array(self, item: Any) -> list[str]:
        if not isinstance(self.value, list):
            return [f"{self.where}: {self.value!r} is not an array"]
        return [
            p for i, v in enumerate(self.value) for p in mismatches(v, item, f"{self.where}[{i}]")
        ]

    def mapping(self, value: Any) -> list[str]:
        if not isinstance(self.value, dict):
            return [f"{self.where}: {self.value!r} is not an object"]
        return [p for k, v in self.value.items() for p in mismatches(v, value, f"{self.where}.{k}")]

    def scalar(self, kind: type) -> list[str]:
        v = self.value
        fits = isinstance(v, _SCALARS[kind]) and (kind is bool or not isinstance(v, bool))
        return [] if fits else [f"{self.where}: {v!r} is not a {kind.__name__}"]

    def object(self, cls: type) -> list[str]:
        return _object(self.value, FORMS.get(cls, cls), self.where)


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
            problems += mismatches(value[key], member.wire_hint, f"{where}.{key}")
        elif not member.optional:
            problems.append(f"{where}.{key}: missing ({cls.__name__})")
    return problems
