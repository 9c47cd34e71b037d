"""Helpers for tests that drive a provider: drain a stream, sleep without waiting."""

from __future__ import annotations

from dataclasses import dataclass, field

from karyi.llm.base import Provider, Request, StreamEvent, TextChunk


@dataclass
class Sleeps:
    """An injected sleep: records each delay and returns at once (tests never wait)."""

    delays: list[float] = field(default_factory=list)

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


async def collect(provider: Provider, request: Request) -> list[StreamEvent]:
    """Every event of one streamed reply."""
    return [event async for event in provider.stream(request)]


def text_of(events: list[StreamEvent]) -> str:
    """The reply text in a list of events."""
    return "".join(e.text for e in events if isinstance(e, TextChunk))
