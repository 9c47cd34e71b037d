"""What the language server sends: the custom requests' results and the notifications'
parameters, as TypedDicts of their JSON (docs/protocol.md, "The language server").

The handlers are annotated with them, so mypy checks that what they build is what is
declared here; typescript.py writes the extension's types from them.
"""

from __future__ import annotations

from typing import TypedDict

from karyi.agent.events import Event
from karyi.core.results import ToolResultJson

__all__ = ["ToolResultJson", "TurnUpdate"]


class TurnUpdate(TypedDict):
    """`karyi/turnUpdate`: one event of a session's running turn."""

    sessionId: str
    turnId: str
    event: Event
