"""Reading server-sent events the way a client does."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SSE:
    """One event: its name, JSON data, and id (None for the closing event)."""

    event: str
    data: Any
    id: int | None = None


def parse_sse(text: str) -> list[SSE]:
    """Every event in a complete `text/event-stream` body."""
    out: list[SSE] = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(": ")
            fields[name] = value
        event_id = int(fields["id"]) if "id" in fields else None
        out.append(SSE(fields["event"], json.loads(fields["data"]), event_id))
    return out
