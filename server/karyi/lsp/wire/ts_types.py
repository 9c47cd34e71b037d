"""TypeScript declarations from Python types: attrs classes, dataclasses and TypedDicts.

typescript.py writes `protocol.gen.ts` with it. A type is written under the name
`names` gives it (else its own), once, the first time it is referenced; `forms` maps a
class with its own JSON form (`to_json()`, `to_dict()`) to the TypedDict of that form.
Keys are camelCase for attrs classes and for the classes `camel_case` picks (the
events), as they are for the rest (dataclasses go on the wire as `asdict` makes them).
Every field of a dataclass is required in TypeScript: the server always sends it.
A dataclass field's metadata `typescript` names its TypeScript type where Python has a
plain str or dict, and a dataclass's `json_extra` the keys its `to_dict()` adds. In a
TypedDict, `Annotated[T, W]` is written as `W`: the wire form of a `T` (such as the
`list[dict[str, Any]]` that `dataclasses.asdict` made of `W`s).
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any, Literal

import attrs

from karyi.core.typed_schema import camel


def doc_comment(obj: Any, indent: str = "") -> str:
    """`obj`'s docstring as a TypeScript doc comment (empty: none)."""
    own = vars(obj).get("__doc__") if isinstance(obj, type) else getattr(obj, "__doc__", None)
    text = inspect.cleandoc(own) if isinstance(own, str) else ""
    if not text or text.startswith(f"{getattr(obj, '__name__', '')}("):
        return ""
    lines = text.splitlines()
    if len(lines) == 1:
        return f"{indent}/** {lines[0]} */\n"
    body = "".join(f"{indent} * {line}".rstrip() + "\n" for line in lines)
    return f"{indent}/**\n{body}{indent} */\n"


@dataclasses.dataclass
class Member:
    """One key of an interface: its JSON name, type, and whether it may be left out."""

    key: str
    hint: Any
    optional: bool
    override: str | None = None


def is_typeddict(cls: Any) -> bool:
    """Whether `cls` is a TypedDict class."""
    return isinstance(cls, type) and issubclass(cls, dict) and hasattr(cls, "__total__")


def members(cls: type, camel_keys: bool, known: dict[str, Any] | None = None) -> Iterator[Member]:
    """The keys of `cls`'s JSON form (`known`: names its module imports only for typing)."""
    hints = typing.get_type_hints(cls, localns=known)
    name = camel if camel_keys else (lambda n: n)
    if attrs.has(cls):
        for field in attrs.fields(cls):
            hint, optional = hints[field.name], field.default is not attrs.NOTHING
            if optional and field.metadata.get("nullable", True) is False:
                hint = _without_none(hint)
            yield Member(name(field.name), hint, optional)
    elif dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            yield Member(name(f.name), hints[f.name], False, f.metadata.get("typescript"))
        for key, hint in getattr(cls, "json_extra", {}).items():
            yield Member(key, hint, False)
    elif is_typeddict(cls):
        extras = typing.get_type_hints(cls, localns=known, include_extras=True)
        for key, hint in extras.items():
            wrapper = typing.get_origin(hint)
            optional = wrapper is typing.NotRequired or (
                wrapper is not typing.Required and key in getattr(cls, "__optional_keys__", ())
            )
            wrapped = wrapper in (typing.NotRequired, typing.Required)
            yield Member(key, typing.get_args(hint)[0] if wrapped else hint, optional)
    else:
        raise TypeError(f"no TypeScript for {cls!r}")


def _without_none(hint: Any) -> Any:
    rest = [a for a in typing.get_args(hint) if a is not type(None)]
    return typing.Union[tuple(rest)]  # noqa: UP007


class Writer:
    """Declarations in the order their types are first referenced."""

    def __init__(
        self,
        names: dict[Any, str],
        forms: dict[type, type] | None = None,
        camel_case: Callable[[type], bool] = attrs.has,
        written: set[type] | None = None,
    ) -> None:
        self.names = names
        self.forms = forms or {}
        self.camel_case = camel_case
        self.written: set[type] = written if written is not None else set()
        self._queue: list[type] = []

    def name(self, cls: type) -> str:
        """The TypeScript name of `cls`."""
        return self.names.get(cls, cls.__name__)

    def ts(self, hint: Any) -> str:
        """The TypeScript type of `hint` (queueing the classes it names)."""
        if hint in self.names and not isinstance(hint, type):
            return self.names[hint]
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is typing.Annotated:
            return self.ts(hint.__metadata__[0])  # the JSON's type, where Python's is looser
        if origin is Literal:
            return " | ".join(f"'{a}'" for a in args)
        if origin in (typing.Union, types.UnionType):
            return " | ".join(self.ts(a) for a in args)
        if hint is type(None):
            return "null"
        if hint is Any or hint is object:
            return "unknown"
        if origin in (list, tuple):
            inner = self.ts(args[0]) if args else "unknown"
            return f"({inner})[]" if "|" in inner else f"{inner}[]"
        if origin is dict:
            return f"Record<string, {self.ts(args[1]) if args else 'unknown'}>"
        simple = {str: "string", int: "number", float: "number", bool: "boolean"}
        if hint in simple:
            return simple[hint]
        if isinstance(hint, type):
            form = self.forms.get(hint, hint)
            if form not in self.written and form not in self._queue:
                self._queue.append(form)
            return self.name(form)
        raise TypeError(f"no TypeScript for {hint!r}")

    def interface(self, cls: type, tag: str | None = None, extends: type | None = None) -> str:
        """`export interface ...` of `cls` (`tag`: the value of a leading `type` key;
        `extends`: the type whose keys it has too)."""
        self.written.add(cls)
        base = f" extends {self.ts(extends)}" if extends is not None else ""
        out = [doc_comment(cls), f"export interface {self.name(cls)}{base} {{\n"]
        if tag is not None:
            out.append(f"  type: '{tag}';\n")
        known = {c.__name__: c for c in self.forms}
        for m in members(cls, self.camel_case(cls), known):
            kind = m.override or self.ts(m.hint)
            out.append(f"  {m.key}{'?' if m.optional else ''}: {kind};\n")
        out.append("}\n")
        return "".join(out)

    def pending(self) -> Iterator[str]:
        """The declarations of every type referenced so far and not yet written."""
        while self._queue:
            cls = self._queue.pop(0)
            if cls not in self.written:
                yield "\n" + self.interface(cls)
