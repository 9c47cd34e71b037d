"""What the built-in tools declare, read without importing them (docs/tools.md#the-catalogue).

A model's first request needs every tool's name, description and schema, not the code
that runs a call: importing every built-in tool module (the edit engine, the terminal,
the web client, …) was a fifth of `karyi run`'s time to its first request.
`catalogue.json` beside this file holds each built-in tool class's declaration;
`python -m karyi.tools.catalogue` writes it, and a test fails when it differs from the
classes, so it is never stale in a release.
"""

from __future__ import annotations

import functools
import importlib
import json
from pathlib import Path
from typing import Any

from karyi.tools.base import Tool

CATALOGUE = Path(__file__).with_name("catalogue.json")
PACKAGE = "karyi.tools.builtin"
"""A tool's place is `module:Class`, the module relative to this package."""

FIELDS = (
    "name",
    "display_name",
    "description",
    "parameters",
    "permission",
    "example",
    "changes_files",
    "runs_programs",
    "plan_safe",
)
"""The class attributes a tool is known by before it runs (tools/base.py)."""

Declaration = dict[str, Any]


def tool_class(place: str) -> type[Tool]:
    """The class at `module:Class` (this imports its module)."""
    module, _, name = place.partition(":")
    cls = getattr(importlib.import_module(f"{PACKAGE}.{module}"), name)
    if not (isinstance(cls, type) and issubclass(cls, Tool)):
        raise TypeError(f"{place} is not a tool class")
    return cls


def declaration(cls: type[Tool]) -> Declaration:
    """What `cls` declares, as the catalogue holds it (JSON values)."""
    found = {field: getattr(cls, field) for field in FIELDS}
    found["permission"] = str(found["permission"])
    copied: Declaration = json.loads(json.dumps(found))  # tuples as lists, as read back
    return copied


@functools.cache
def declarations() -> dict[str, Declaration]:
    """Every built-in tool's declaration, by place."""
    loaded: dict[str, Declaration] = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    return loaded


def tool_classes() -> dict[str, type[Tool]]:
    """Every concrete tool class of the built-in package, by place (imports them all)."""
    import inspect  # the catalogue's writer and its test only
    import pkgutil

    package = importlib.import_module(PACKAGE)
    found: dict[str, type[Tool]] = {}
    for info in pkgutil.walk_packages(package.__path__, f"{PACKAGE}."):
        module = importlib.import_module(info.name)
        for name, cls in vars(module).items():
            if (
                isinstance(cls, type)
                and issubclass(cls, Tool)
                and cls.__module__ == info.name
                and not inspect.isabstract(cls)
            ):
                found[f"{info.name.removeprefix(PACKAGE + '.')}:{name}"] = cls
    return dict(sorted(found.items()))


def build() -> dict[str, Declaration]:
    """The catalogue, from the classes themselves."""
    return {place: declaration(cls) for place, cls in tool_classes().items()}


def main() -> None:
    """Write `catalogue.json` from the built-in tool classes."""
    catalogue = build()
    CATALOGUE.write_text(json.dumps(catalogue, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {CATALOGUE} ({len(catalogue)} tools)")


if __name__ == "__main__":
    main()
