"""TypeScript declarations from Python types: attrs classes, dataclasses and TypedDicts.

typescript.py writes `protocol.gen.ts` with it: `Writer` is a visitor of the type
grammar core/type_walk.py walks, and writes each class's keys as its `members` lists
them. A type is written under the name `names` gives it (else its own), once, the
first time it is referenced; `forms` maps a class with its own JSON form (`to_json()`,
`to_dict()`) to the TypedDict of that form.
Keys are camelCase for attrs classes and for the classes `camel_case` picks (the
events), as they are for the rest (dataclasses go on the wire as `asdict` makes them).
Every field of a dataclass is required in TypeScript: the server always sends it.
A dataclass field's metadata `typescript` names its TypeScript type where Python has a
plain str or dict, and a dataclass's `json_extra` the keys its `to_dict()` adds. In a
TypedDict, `Annotated[T, W]` is written as `W`: the wire form of a `T` (such as the
`list[dict[str, Any]]` that `dataclasses.asdict` made of `W`s).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from karyi.core.type_walk import members, walk


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
        return walk(hint, self)

    def annotated(self, hint: Any, wire: Any) -> str:
        """The JSON's type, where Python's is looser."""
        return self.ts(wire)

    def literal(self, values: tuple[Any, ...]) -> str:
        """`'a' | 'b'`."""
        return " | ".join(f"'{v}'" for v in values)

    def union(self, options: tuple[Any, ...]) -> str:
        """`A | B`."""
        return " | ".join(self.ts(a) for a in options)

    def null(self) -> str:
        """`null`."""
        return "null"

    def unknown(self) -> str:
        """`unknown`: any JSON."""
        return "unknown"

    def array(self, item: Any) -> str:
        """`X[]` (parenthesised when `X` is a union)."""
        inner = self.ts(item)
        return f"({inner})[]" if "|" in inner else f"{inner}[]"

    def mapping(self, value: Any) -> str:
        """`Record<string, X>`."""
        return f"Record<string, {self.ts(value)}>"

    def scalar(self, kind: type) -> str:
        """`string`, `number` or `boolean`."""
        return {str: "string", int: "number", float: "number", bool: "boolean"}[kind]

    def object(self, cls: type) -> str:
        """The name of `cls`'s JSON form, written later (`pending`) if not yet."""
        form = self.forms.get(cls, cls)
        if form not in self.written and form not in self._queue:
            self._queue.append(form)
        return self.name(form)

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
            kind = m.metadata.get("typescript") or self.ts(m.wire_hint)
            out.append(f"  {m.key}{'?' if m.optional else ''}: {kind};\n")
        out.append("}\n")
        return "".join(out)

    def pending(self) -> Iterator[str]:
        """The declarations of every type referenced so far and not yet written."""
        while self._queue:
            cls = self._queue.pop(0)
            if cls not in self.written:
                yield "\n" + self.interface(cls)
