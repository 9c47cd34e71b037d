"""Namedtuples back to the JSON they were made from.

pygls hands a custom method's params, `initializationOptions` and what other language
servers answer as nested `Object` namedtuples; `plain` turns them back into the JSON the
other side sent. A module of its own, importing nothing: `karyi lsp` reads its
`initialize` options with it before loading anything else (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def plain(value: Any) -> Any:
    """Namedtuples, mappings, lists and tuples as dicts and lists, all the way down."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value
