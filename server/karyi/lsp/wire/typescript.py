"""`client-vscode/src/protocol.gen.ts` from `params.py`: the extension's types of the
custom methods' parameters, and the methods' names (`make protocol` writes it; a test
fails when it is not current)."""

from __future__ import annotations

import inspect
import sys
import typing
from typing import Any, Literal

import attrs

from karyi.core.typed_schema import camel
from karyi.lsp.wire import params

HEADER = """\
// Generated from server/karyi/lsp/wire/params.py by `make protocol`: do not edit.
// The custom methods' parameters and names (docs/protocol.md, "The language server").
"""


def _aliases() -> dict[Any, str]:
    """The `Literal` aliases of `params.py` by value: written by name, not inlined."""
    return {
        value: name
        for name, value in vars(params).items()
        if typing.get_origin(value) is Literal and not name.startswith("_")
    }


def _ts(hint: Any, aliases: dict[Any, str]) -> str:
    if hint in aliases:
        return aliases[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return " | ".join(f"'{a}'" for a in args)
    if origin in (typing.Union, __import__("types").UnionType):
        return " | ".join(_ts(a, aliases) for a in args)
    if hint is type(None):
        return "null"
    if hint is Any:
        return "unknown"
    if attrs.has(hint):
        return hint.__name__
    if origin is list:
        inner = _ts(args[0], aliases) if args else "unknown"
        return f"({inner})[]" if "|" in inner else f"{inner}[]"
    simple = {str: "string", int: "number", float: "number", bool: "boolean"}
    if hint in simple:
        return simple[hint]
    if origin is dict:
        return "Record<string, unknown>"
    raise TypeError(f"no TypeScript for {hint!r}")


def _doc(obj: Any, indent: str = "") -> str:
    text = inspect.getdoc(obj) or ""
    if not text:
        return ""
    lines = text.splitlines()
    if len(lines) == 1:
        return f"{indent}/** {lines[0]} */\n"
    body = "".join(f"{indent} * {line}".rstrip() + "\n" for line in lines)
    return f"{indent}/**\n{body}{indent} */\n"


def _interface(cls: type, aliases: dict[Any, str]) -> str:
    hints = typing.get_type_hints(cls)
    out = [_doc(cls), f"export interface {cls.__name__} {{\n"]
    for field in attrs.fields(cls):
        hint = hints[field.name]
        optional = field.default is not attrs.NOTHING
        if optional and field.metadata.get("nullable", True) is False:
            hint = typing.Union[tuple(a for a in typing.get_args(hint) if a is not type(None))]  # noqa: UP007
        mark = "?" if optional else ""
        out.append(f"  {camel(field.name)}{mark}: {_ts(hint, aliases)};\n")
    out.append("}\n")
    return "".join(out)


def typescript() -> str:
    """The whole generated file."""
    aliases = _aliases()
    parts = [HEADER]
    for value, name in aliases.items():
        parts.append(f"\nexport type {name} = {_ts(value, {})};\n")
    for cls in vars(params).values():
        if isinstance(cls, type) and attrs.has(cls) and cls.__module__ == params.__name__:
            parts.append("\n" + _interface(cls, aliases))
    parts.append("\n/** The custom methods, by name. */\nexport const Methods = {\n")
    for short, (method, _cls) in params.METHODS.items():
        parts.append(f"  {short}: '{method}',\n")
    parts.append("} as const;\n")
    return "".join(parts)


if __name__ == "__main__":
    sys.stdout.write(typescript())
