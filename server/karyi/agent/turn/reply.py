"""One model reply as it streams: text to the user, calls to the executor at once.

The reader feeds each chunk to the dialect's parser, shows text and thinking as they
arrive, hands every call the parser completes to the batch (it starts while the model is
still writing), and counts usage in the meter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from karyi.agent.events import Event, Notice, Text, ToolPending
from karyi.agent.turn.cost import CostMeter
from karyi.agent.turn.drafts import Drafts
from karyi.agent.turn.executor import CallBatch, checked_call
from karyi.core.text import valid_text
from karyi.llm.base import (
    Finish,
    ReasoningBlock,
    Retrying,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ToolCallChunk,
    ToolCallEnd,
    Usage,
)
from karyi.protocol.base import StreamParser
from karyi.protocol.calls import CallReady, CallStarted, ParseEvent, ToolCall
from karyi.protocol.calls import TextDelta as ParsedText
from karyi.protocol.native import NativeParser


@dataclass
class Reply:
    """What one model call produced."""

    text: list[str] = field(default_factory=list)
    channels: dict[str, list[str]] = field(default_factory=dict)
    calls: list[ToolCall] = field(default_factory=list)
    finish: str = ""
    reasoning: list[Mapping[str, Any]] = field(default_factory=list)
    discarded: int = 0
    """Calls a network failure cut off (network_cut.py): the turn goes on so the model,
    told its reply was cut, can write them again."""

    def channel(self, name: str) -> str:
        """Everything the reply said on `name` (`text`, `answer`, `thinking`, …)."""
        return "".join(self.channels.get(name, []))


@dataclass
class ReplyReader:
    """Turns a provider's stream into a `Reply`, announcing and starting as it goes."""

    parser: StreamParser
    batch: CallBatch
    meter: CostMeter
    emit: Callable[[Event], None]
    reply: Reply = field(default_factory=Reply)
    drafts: Drafts | None = None
    """Previews of edits still being written (drafts.py); made from the batch when the
    reply first parses."""

    def _drafts(self) -> Drafts:
        if self.drafts is None:
            self.drafts = Drafts(self.batch.toolkit, self.batch.ctx, self.emit)
        return self.drafts

    def stop(self) -> None:
        """The reply was abandoned (the turn was cancelled): no draft comes after this."""
        if self.drafts is not None:
            self.drafts.stop()

    def on_stream(self, event: StreamEvent) -> None:
        """One event of the provider's stream."""
        reply = self.reply
        if isinstance(event, TextChunk):
            text = valid_text(event.text)
            reply.text.append(text)
            self.on_parsed(self.parser.feed(text))
        elif isinstance(event, ThinkingChunk):
            thought = valid_text(event.text)
            reply.channels.setdefault("thinking", []).append(thought)
            self.emit(Text(thought, "thinking"))
        elif isinstance(event, ReasoningBlock):
            reply.reasoning.append(event.block)
        elif isinstance(event, ToolCallChunk | ToolCallEnd):
            self._on_native_call(event)
        elif isinstance(event, Usage):
            self.emit(self.meter.add(event))
        elif isinstance(event, Finish):
            reply.finish = event.reason
        elif isinstance(event, Retrying):
            note = f"{event.error}, retrying in {event.delay:.1f}s (attempt {event.attempt})"
            self.emit(Notice("retry", note))

    def _on_native_call(self, event: ToolCallChunk | ToolCallEnd) -> None:
        parser = self.parser
        if not isinstance(parser, NativeParser):
            return
        if isinstance(event, ToolCallEnd):
            self.on_parsed(parser.end_call(event.slot))
            return
        self.on_parsed(
            parser.feed_call(
                event.slot,
                call_id=valid_text(event.id) if event.id else event.id,
                name=valid_text(event.name) if event.name else event.name,
                arguments=valid_text(event.arguments),
            )
        )

    def on_parsed(self, events: list[ParseEvent]) -> None:
        """What the parser made of the text so far: shown text, announced and ready calls."""
        for ev in events:
            if isinstance(ev, ParsedText):
                self.reply.channels.setdefault(ev.channel, []).append(ev.text)
                self.emit(Text(ev.text, ev.channel))
            elif isinstance(ev, CallStarted):
                self.emit(ToolPending(ev.index, valid_text(ev.name)))
            elif isinstance(ev, CallReady):
                call = checked_call(ev.call)
                self.reply.calls.append(call)
                self._drafts().settle(call)
                self.batch.submit(call)
        self._drafts().update(self.parser)
