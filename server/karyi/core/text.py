"""Text from outside (a model, an editor, an HTTP client) made safe for every layer.

Python strings can hold lone surrogates (from JSON escapes such as "\\ud800" or a
provider's stream) that no UTF-8 encoder accepts: written to the session store, a log,
a terminal or a file they crash the writer far from where they came in. They are caught
once where text enters: a tool call that holds one fails with a precise error, and
prose has each replaced by U+FFFD.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def valid_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (most text has none)."""
    return _LONE_SURROGATE.sub(REPLACEMENT, text) if _LONE_SURROGATE.search(text) else text


def invalid_text_at(value: Any, where: str) -> str | None:
    """Where in `value` (a string, or JSON-like lists and mappings of them) text is not
    valid Unicode, as a sentence naming the field; None when all of it is."""
    if isinstance(value, str):
        found = _LONE_SURROGATE.search(value)
        if found is None:
            return None
        return (
            f"{where}: invalid Unicode (a lone surrogate U+{ord(found.group()):04X} at "
            f"character {found.start()})"
        )
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = valid_text(str(key))
            problem = invalid_text_at(str(key), f"{where}: the key {name!r}") or invalid_text_at(
                item, f"{where}.{name}" if where else name
            )
            if problem:
                return problem
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            if problem := invalid_text_at(item, f"{where}[{i}]"):
                return problem
    return None


def valid_tree(value: Any) -> Any:
    """`value` (JSON-like) with `valid_text` applied to every string, keys included."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, Mapping):
        return {valid_text(str(k)): valid_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [valid_tree(v) for v in value]
    return value
