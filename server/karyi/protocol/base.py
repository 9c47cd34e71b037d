"""The dialect contract: a streaming parser for model text and a renderer for results."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Generator, Mapping, Sequence
from typing import Any, ClassVar

from karyi.protocol.calls import (
    CallOutcome,
    CallReady,
    CallStarted,
    Channel,
    DialectState,
    ParseEvent,
    PartialCall,
    SchemaLookup,
    TextDelta,
    ToolCall,
)
from karyi.protocol.scanner import Scanner

log = logging.getLogger(__name__)


def no_schemas(_name: str) -> Mapping[str, Any] | None:
    """A schema lookup that knows no tool (parsing still works; nothing is typed)."""
    return None


class StreamParser(ABC):
    """Turns a reply, fed in chunks of any size, into events as soon as they are known."""

    @abstractmethod
    def feed(self, chunk: str) -> list[ParseEvent]:
        """Consume one chunk and return the events it completed."""

    @abstractmethod
    def close(self) -> list[ParseEvent]:
        """End the reply: report unfinished calls as malformed, flush pending text."""

    def parse(self, text: str) -> list[ParseEvent]:
        """One-shot convenience: feed the whole text and close."""
        return self.feed(text) + self.close()

    def partial(self) -> PartialCall | None:
        """The call being written right now, with its parameters so far (None between
        calls). Built on demand, in time linear in the call's length, so a caller that
        asks now and then keeps the parse linear."""
        return None


MAX_RECOVERIES = 50
"""How many times one reply may be re-read after a malformed call (docs/protocol.md,
"Limits")."""


class ScannerParser(StreamParser):
    """A parser written as one generator over a `Scanner` (see scanner.py)."""

    def __init__(self, schemas: SchemaLookup, state: DialectState | None) -> None:
        self.schemas = schemas
        self.state = state if state is not None else DialectState()
        self.sc = Scanner()
        self._events: list[ParseEvent] = []
        self._gen: Generator[None, None, None] | None = None
        self._done = False
        self._index = 0
        self.recoveries = 0

    def resume(self, text: str) -> bool:
        """Read `text`, consumed inside a malformed call, again as what follows that call,
        so the valid calls after a broken one still run; False once MAX_RECOVERIES were
        made in this reply (which keeps the work linear in its length)."""
        if not text or self.recoveries >= MAX_RECOVERIES:
            return False
        self.recoveries += 1
        self.sc.unread(text)
        return True

    @abstractmethod
    def run(self) -> Generator[None, None, None]:
        """The whole grammar, top-down; yields whenever it needs more text."""

    def text(self, text: str, channel: Channel = "text") -> None:
        """Emit model text, merging with the previous delta of the same channel."""
        if not text:
            return
        last = self._events[-1] if self._events else None
        if isinstance(last, TextDelta) and last.channel == channel:
            self._events[-1] = TextDelta(last.text + text, channel)
        else:
            self._events.append(TextDelta(text, channel))

    def started(self, name: str) -> None:
        """Announce that the next call (by index) has begun streaming."""
        self._events.append(CallStarted(self._index, name))

    def next_id(self) -> str:
        """A session-unique id for dialects whose calls carry none."""
        self.state.calls_seen += 1
        return f"call_{self.state.calls_seen}"

    def emit(
        self,
        name: str,
        params: dict[str, Any],
        *,
        call_id: str | None = None,
        raw: str = "",
        error: str | None = None,
        error_code: str | None = None,
    ) -> ToolCall:
        """Emit a finished call with the next index of this reply."""
        call = ToolCall(
            index=self._index,
            name=name,
            params=params,
            id=call_id if call_id is not None else self.next_id(),
            raw=raw,
            error=error,
            error_code=error_code or ("malformed_call" if error else ""),
        )
        self._index += 1
        self._events.append(CallReady(call))
        return call

    def _step(self) -> None:
        if self._done:
            return
        try:
            if self._gen is None:
                self._gen = self.run()
            next(self._gen)
        except StopIteration:
            self._done = True
        except Exception:  # a parser bug must never end the turn
            log.exception("%s parser failed", type(self).__name__)
            self._done = True
            self.emit(
                "",
                {},
                error="internal parser error: the rest of this reply was not parsed",
                error_code="parser_error",
            )

    def _drain(self) -> list[ParseEvent]:
        out, self._events = self._events, []
        return out

    def feed(self, chunk: str) -> list[ParseEvent]:
        """See `StreamParser.feed`."""
        if chunk:
            if self._done:
                self.text(chunk)
            else:
                self.sc.push(chunk)
                self._step()
        return self._drain()

    def close(self) -> list[ParseEvent]:
        """See `StreamParser.close`."""
        self.sc.close()
        # At end of stream every reader returns at once, so a few steps always finish.
        for _ in range(10_000):
            if self._done:
                break
            self._step()
        return self._drain()


class Dialect(ABC):
    """A way for the model to write tool calls and to read their results."""

    name: ClassVar[str]
    summary: ClassVar[str]

    @abstractmethod
    def parser(
        self, schemas: SchemaLookup = no_schemas, state: DialectState | None = None
    ) -> StreamParser:
        """A fresh streaming parser for one reply."""

    @abstractmethod
    def render_results(self, outcomes: Sequence[CallOutcome]) -> str:
        """The results of one reply's calls, as text the model reads next."""

    @abstractmethod
    def format_call(self, name: str, params: Mapping[str, Any]) -> str:
        """How the model should write one call: used for examples in the tool prompt."""

    @abstractmethod
    def instructions(self) -> str:
        """The rules of the dialect, for the system prompt."""
