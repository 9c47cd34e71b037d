"""The data that crosses the protocol boundary: parsed calls, stream events, outcomes.

Every dialect turns model text into these objects and renders `CallOutcome`s back into
text, so the agent, the CLI, the LSP server and the gateway never see dialect syntax.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

SchemaLookup = Callable[[str], Mapping[str, Any] | None]
"""Returns a tool's JSON Schema for its parameters, or None for a tool nobody registered."""

MALFORMED = "malformed_call"
DUPLICATE_ID = "duplicate_id"


@dataclass(frozen=True)
class ToolCall:
    """One tool call exactly as the model wrote it, in reply order.

    `error` is set when the dialect could not make a valid call out of the text: such a
    call is never executed, but it still gets a result so the model learns what was wrong.
    """

    index: int
    name: str
    params: dict[str, Any]
    id: str
    raw: str = ""
    error: str | None = None
    error_code: str = ""

    @property
    def ok(self) -> bool:
        """True when the call parsed cleanly and may be executed."""
        return self.error is None


Channel = Literal["text", "thinking", "answer"]


@dataclass(frozen=True)
class TextDelta:
    """A piece of model text outside tool calls: prose, thinking, or the final answer."""

    text: str
    channel: Channel = "text"


@dataclass(frozen=True)
class CallStarted:
    """The model has begun writing a call; its parameters are still streaming."""

    index: int
    name: str


@dataclass(frozen=True)
class CallReady:
    """A call is complete (or definitely malformed) and can be validated and run."""

    call: ToolCall


ParseEvent = TextDelta | CallStarted | CallReady


@dataclass(frozen=True)
class PartialCall:
    """A call the model is still writing, as far as it has arrived: what lets an editor
    show an edit growing before the call is complete (docs/protocol.md, "Drafts").

    `params` holds every parameter seen so far; `open` is the key path of the one value
    still being written (e.g. `("files", 0, "pairs", 1, "replace")`), empty when none is.
    A value still being written is cut before any text that might be the start of its
    end tag or closing quote, so it only ever grows. `call_id` is known only in dialects
    whose calls carry their id from the start (`native`).
    """

    index: int
    name: str
    params: dict[str, Any]
    open: tuple[str | int, ...] = ()
    call_id: str = ""


@dataclass(frozen=True)
class CallOutcome:
    """What a dialect needs to render one call's result back to the model."""

    call: ToolCall
    success: bool
    content: str
    status: str = ""
    error_code: str | None = None
    data: Any = None

    @property
    def status_word(self) -> str:
        """`ok`/`error` unless the tool reported something more precise (`running`)."""
        return self.status or ("ok" if self.success else "error")


@dataclass
class DialectState:
    """What a dialect must remember across the replies of one session."""

    used_ids: set[str] = field(default_factory=set)
    calls_seen: int = 0


def events_calls(events: list[ParseEvent]) -> list[ToolCall]:
    """The calls among a list of events, in order (a helper for callers and tests)."""
    return [e.call for e in events if isinstance(e, CallReady)]
