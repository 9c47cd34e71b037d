"""Tool names for MCP tools: `server__tool`, safe for every provider's function names.

Providers accept `[A-Za-z0-9_-]{1,64}`; anything else becomes `_`. A name longer than 64
is cut and ends with `_` and 8 hex digits of a hash of the whole name, so two long names
that share a beginning stay different.
"""

from __future__ import annotations

import hashlib
import re

MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    """`server__tool`, sanitised and length-capped."""
    full = f"{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    if len(full) <= MAX_NAME:
        return full
    digest = hashlib.sha256(f"{server}__{tool}".encode()).hexdigest()[:8]
    return f"{full[: MAX_NAME - 9]}_{digest}"
