"""One walk over the type grammar the wire is written in, for every reader of it.

The wire's types are Python type hints: attrs classes, dataclasses and TypedDicts whose
fields are `str`, `int`, `float`, `bool`, `None`, `Any`, `Literal[...]`, `X | Y`,
`list[X]` (or a tuple), `dict[str, X]`, another such class, and `Annotated[T, W]` where
the JSON of a `T` is a `W`. Each reader of them is a `TypeVisitor` that says what it
makes of each form: the TypeScript writer (lsp/wire/ts_types.py), the tests' check of a
JSON value against its type (tests/support/wire_shape.py), the JSON Schema of a class
(core/typed_schema.py). `walk` decides which form a hint is, `members` lists the keys of
a class's JSON form, so the grammar is read in one place (docs/architecture.md).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterator, Mapping
from typing import Any, Literal, Protocol, TypeVar

import attrs

T = TypeVar("T", covariant=True)

SCALARS = (str, int, float, bool)
"""The plain values of JSON (a float may be written as an int)."""


class TypeVisitor(Protocol[T]):
    """What a reader of the type grammar makes of each form (`walk` picks the form)."""

    def annotated(self, hint: Any, wire: Any) -> T:
        """`Annotated[hint, wire]`: a `hint` whose JSON is a `wire`."""
        ...

    def literal(self, values: tuple[Any, ...]) -> T:
        """`Literal[values]`."""
        ...

    def union(self, options: tuple[Any, ...]) -> T:
        """`A | B | ...` (`None` one of them when it is optional)."""
        ...

    def null(self) -> T:
        """`None`."""
        ...

    def unknown(self) -> T:
        """`Any` or `object`: any JSON."""
        ...

    def array(self, item: Any) -> T:
        """`list[item]` or a tuple of them (`item` is `Any` when unsaid)."""
        ...

    def mapping(self, value: Any) -> T:
        """`dict[str, value]` (`value` is `Any` when unsaid)."""
        ...

    def scalar(self, kind: type) -> T:
        """`str`, `int`, `float` or `bool`."""
        ...

    def object(self, cls: type) -> T:
        """A class: its JSON is an object of its `members`."""
        ...


def walk(hint: Any, visitor: TypeVisitor[T]) -> T:
    """Hand `hint` to the `visitor` method of its form; TypeError for a hint outside
    the grammar."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        return visitor.annotated(args[0], hint.__metadata__[0])
    if origin is Literal:
        return visitor.literal(args)
    if is_union(hint):
        return visitor.union(args)
    if hint is None or hint is type(None):
        return visitor.null()
    if hint is Any or hint is object:
        return visitor.unknown()
    if origin in (list, tuple) or hint in (list, tuple):
        return visitor.array(args[0] if args else Any)
    if origin is dict or hint is dict:
        return visitor.mapping(args[1] if len(args) == 2 else Any)
    if hint in SCALARS:
        return visitor.scalar(hint)
    if isinstance(hint, type):
        return visitor.object(hint)
    raise TypeError(f"{hint!r} is not a type of the wire")


def is_union(hint: Any) -> bool:
    """Whether `hint` is `A | B` (either spelling)."""
    return typing.get_origin(hint) in (typing.Union, types.UnionType)


def without_none(hint: Any) -> Any:
    """`X | None` -> `X` (a union of the rest when there are several)."""
    rest = [a for a in typing.get_args(hint) if a is not type(None)]
    return rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007


def camel(name: str) -> str:
    """`session_id` -> `sessionId`."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@dataclasses.dataclass(frozen=True)
class Member:
    """One key of a class's JSON form: the key, the Python field it comes from, its type,
    whether it may be left out, and the field's metadata (constraints, overrides)."""

    key: str
    name: str
    hint: Any
    optional: bool
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def wire_hint(self) -> Any:
        """The type of what the key holds when it is sent: an optional field whose
        metadata says `nullable: False` is left out, never null."""
        if self.optional and self.metadata.get("nullable", True) is False:
            return without_none(self.hint)
        return self.hint


def is_typeddict(cls: Any) -> bool:
    """Whether `cls` is a TypedDict class."""
    return isinstance(cls, type) and issubclass(cls, dict) and hasattr(cls, "__total__")


def members(cls: type, camel_keys: bool, known: dict[str, Any] | None = None) -> Iterator[Member]:
    """The keys of `cls`'s JSON form, camelCase when `camel_keys` (`known`: names its
    module imports only for typing). An attrs field with a default may be left out; a
    dataclass's fields never are (`asdict` writes them all; `json_extra` names the keys
    its `to_dict()` adds); a TypedDict says itself (`Required`, `NotRequired`, total)."""
    hints = typing.get_type_hints(cls, localns=known)
    key = camel if camel_keys else (lambda n: n)
    if attrs.has(cls):
        for field in attrs.fields(cls):
            optional = field.default is not attrs.NOTHING
            yield Member(key(field.name), field.name, hints[field.name], optional, field.metadata)
    elif dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            yield Member(key(f.name), f.name, hints[f.name], False, f.metadata)
        for extra, hint in getattr(cls, "json_extra", {}).items():
            yield Member(extra, extra, hint, False)
    elif is_typeddict(cls):
        extras = typing.get_type_hints(cls, localns=known, include_extras=True)
        for name, hint in extras.items():
            wrapper = typing.get_origin(hint)
            optional = wrapper is typing.NotRequired or (
                wrapper is not typing.Required and name in getattr(cls, "__optional_keys__", ())
            )
            wrapped = wrapper in (typing.NotRequired, typing.Required)
            yield Member(name, name, typing.get_args(hint)[0] if wrapped else hint, optional)
    else:
        raise TypeError(f"{cls!r} has no JSON form of keys")
