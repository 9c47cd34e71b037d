"""pygls hands custom params and `initializationOptions` over as nested `Object`
namedtuples; `plain` turns them back into the JSON the client sent.

A module of its own so `initialize` can read its options without loading the custom
methods' parameter types (lsp/params.py): `karyi lsp` answers `initialize` first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def plain(value: Any) -> Any:
    """pygls `Object`s (namedtuples) and lists back to dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value
