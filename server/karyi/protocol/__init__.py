"""The dialects the model speaks: streaming parsers and result renderers.

Each dialect's format is documented in docs/protocol.md.
"""

from __future__ import annotations

from karyi.protocol.agentxml import AgentXml
from karyi.protocol.base import Dialect, StreamParser
from karyi.protocol.calls import (
    CallOutcome,
    CallReady,
    CallStarted,
    DialectState,
    ParseEvent,
    PartialCall,
    TextDelta,
    ToolCall,
)
from karyi.protocol.native import Native
from karyi.protocol.toolcall import ToolCallXml
from karyi.protocol.toolsxml import ToolsXml

DIALECTS: dict[str, Dialect] = {
    d.name: d for d in (ToolsXml(), AgentXml(), ToolCallXml(), Native())
}


class UnknownDialect(ValueError):
    """A dialect name that is not one of DIALECTS."""


def get_dialect(name: str) -> Dialect:
    """The dialect called `name`, or UnknownDialect listing the valid names."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise UnknownDialect(
            f"unknown dialect {name!r}: expected one of {', '.join(DIALECTS)}"
        ) from None


__all__ = [
    "DIALECTS",
    "CallOutcome",
    "CallReady",
    "CallStarted",
    "Dialect",
    "DialectState",
    "ParseEvent",
    "PartialCall",
    "StreamParser",
    "TextDelta",
    "ToolCall",
    "UnknownDialect",
    "get_dialect",
]
