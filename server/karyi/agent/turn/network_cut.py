"""A connection that drops while the model is writing a call: said as such, not as a
malformed call.

The parser reports a call the stream cut off as malformed when the reply ends. When the
stream ended because the network failed, that call is the network's fault: it is
discarded (never run, never shown as `✗ malformed_call`), the user is told what
happened, and the turn goes on: the model learns its reply was cut and writes the call
again, its request retried like any other (docs/reliability.md).
"""

from __future__ import annotations

from collections.abc import Callable

from karyi.agent.events import Event, Notice
from karyi.agent.turn.reply import Reply
from karyi.llm.base import ProviderError
from karyi.protocol.calls import CallReady, ParseEvent

NETWORK_KINDS = frozenset({"connection", "timeout"})


def cut_by_network(error: ProviderError | None) -> bool:
    """True when the reply stopped because the connection failed after output began."""
    return error is not None and error.partial and error.kind in NETWORK_KINDS


def without_cut_calls(
    events: list[ParseEvent],
    error: ProviderError | None,
    reply: Reply,
    emit: Callable[[Event], None],
) -> list[ParseEvent]:
    """`events` without the calls the network cut off, each announced as a notice and
    counted in `reply.discarded`."""
    if not cut_by_network(error):
        return events
    assert error is not None
    kept: list[ParseEvent] = []
    for event in events:
        if isinstance(event, CallReady) and event.call.error:
            name = event.call.name or "tool"
            emit(
                Notice(
                    "network",
                    f"the connection to the model failed while it was writing the {name} call "
                    f"({error.message}); the unfinished call was discarded and nothing was run",
                )
            )
            reply.discarded += 1
            continue
        kept.append(event)
    return kept
