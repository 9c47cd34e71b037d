"""The settings reference of docs/settings.md: one table row per key, from model.py.

The table sits between two markers in the page; `make protocol` rewrites it
(`python -m karyi.settings.reference docs/settings.md`) and a test keeps it current, so
a key added to the model is documented by the same commit.
"""

from __future__ import annotations

import json
import sys
import typing
from pathlib import Path
from typing import Any, Literal

import attrs

from karyi.core.typed_json import to_json
from karyi.core.typed_schema import camel, is_union, rest_field, without_none
from karyi.settings.model import SettingsModel

BEGIN = "<!-- settings table: generated from server/karyi/settings/model.py by `make protocol` -->"
END = "<!-- end of the settings table -->"
_NAMES = {str: "string", int: "integer", float: "number", bool: "boolean"}
_PLACEHOLDERS = {"prices": "MODEL", "servers": "LANGUAGE", "agents": "NAME"}


def _type(hint: Any) -> str:
    if is_union(hint):
        return _type(without_none(hint)) + " or null"
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return " \\| ".join(f"`{a}`" for a in args)
    if origin is list:
        return f"list of {_type(args[0])}"
    if origin is dict:
        return "object" if args[1] is Any else f"{_type(args[1])} by name"
    if attrs.has(hint):
        return "object"
    return _NAMES[hint]


def _default(value: Any) -> str:
    return f"`{json.dumps(to_json(value), ensure_ascii=False)}`"


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _rows(cls: type, prefix: str, instance: Any) -> list[str]:
    """The rows of `cls`'s keys; `instance` is its default (None: it has none)."""
    hints = typing.get_type_hints(cls)
    out: list[str] = []
    for field in attrs.fields(cls):
        hint, name = hints[field.name], camel(field.name)
        inner = without_none(hint) if is_union(hint) else hint
        if field.name == rest_field(cls):
            inner, name = typing.get_args(inner)[1], _PLACEHOLDERS[prefix.rstrip(".")]
        elif typing.get_origin(inner) is dict and attrs.has(typing.get_args(inner)[1]):
            inner, name = typing.get_args(inner)[1], f"{name}.{_PLACEHOLDERS[name]}"
        key, text = prefix + name, field.metadata.get("description") or ""
        if attrs.has(inner):
            text = text or _first_paragraph(inner)
            out.append(f"| `{key}` | object | | {_cell(text)} |")
            child = getattr(instance, field.name, None) if instance is not None else None
            out += _rows(inner, key + ".", child if attrs.has(type(child)) else None)
            continue
        default = "required" if field.default is attrs.NOTHING else "—"
        if instance is not None and getattr(instance, field.name) is not None:
            default = _default(getattr(instance, field.name))
        elif instance is not None and field.metadata.get("nullable", True):
            default = "`null`"
        kind = _type(inner if field.metadata.get("nullable") is False else hint)
        out.append(f"| `{key}` | {kind} | {default} | {_cell(text)} |")
    return out


def _first_paragraph(cls: type) -> str:
    """The first paragraph of a class's docstring."""
    return (cls.__doc__ or "").strip().split("\n\n")[0]


def table() -> str:
    """The whole table, markers included."""
    head = ["| key | type | default | meaning |", "|---|---|---|---|"]
    body = _rows(SettingsModel, "", SettingsModel())
    return "\n".join([BEGIN, *head, *body, END])


def with_table(page: str) -> str:
    """`page` with the text between the markers replaced by the current table."""
    start, end = page.index(BEGIN), page.index(END) + len(END)
    return page[:start] + table() + page[end:]


if __name__ == "__main__":
    target = Path(sys.argv[1])
    target.write_text(with_table(target.read_text()))
