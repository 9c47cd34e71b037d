"""`$KARYI{NAME}` placeholders: found anywhere in a call's parameters and replaced by
their values on a copy, just before the tool runs (the call itself keeps placeholders)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

PLACEHOLDER = re.compile(r"\$KARYI\{([A-Za-z_][A-Za-z0-9_]*)\}")
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class UnknownVariable(Exception):
    """Placeholders that name no known variable; the message says how to provide them."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        listed = ", ".join(f"$KARYI{{{n}}}" for n in names)
        first = names[0]
        super().__init__(
            f"unknown secure variable{'s' if len(names) > 1 else ''} {listed}: nothing was "
            f'executed. Ask the user for it with the get_value tool (key="{first}"), or the '
            f"user can store it with `karyi var set {first}`"
        )


def placeholders(value: Any) -> set[str]:
    """Every variable name referenced in `value` (strings, lists and dicts, nested)."""
    return {name for text in _strings(value) for name in PLACEHOLDER.findall(text)}


def substitute(value: Any, lookup: Callable[[str], str | None]) -> Any:
    """A copy of `value` with every placeholder replaced; UnknownVariable if any is unknown."""
    missing = sorted(n for n in placeholders(value) if lookup(n) is None)
    if missing:
        raise UnknownVariable(missing)

    def one(text: str) -> str:
        return PLACEHOLDER.sub(lambda m: lookup(m.group(1)) or "", text)

    return _walk(value, one)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _walk(value: Any, fn: Callable[[str], Any]) -> Any:
    if isinstance(value, str):
        return fn(value) if "$KARYI{" in value else value
    if isinstance(value, dict):
        return {k: _walk(v, fn) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_walk(v, fn) for v in value)
    return value
