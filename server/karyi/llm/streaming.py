"""What the SDK-backed providers do alike while a reply streams.

Each provider module translates its SDK's events into contract events (base.py) and
builds its SDK's request. The bookkeeping around that is the same for every SDK and
lives here: which tool-call slots are open and closing them, the token usage so far,
the check that the stream really finished, the events that close a reply, the error
handling of one attempt, and the retry wrapper (retry.py) around attempts, which
marks a failure after some output as `partial`.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar

import httpx2

from karyi.llm import errors
from karyi.llm.base import (
    Finish,
    Provider,
    ProviderError,
    Request,
    StreamEvent,
    ToolCallEnd,
    Usage,
)
from karyi.llm.endpoint import Endpoint
from karyi.llm.retry import retrying
from karyi.llm.vision import without_images

Item = TypeVar("Item")
Item_co = TypeVar("Item_co", covariant=True)


class ToolSlots:
    """The tool-call slots of one reply that are open, in the order they opened."""

    def __init__(self) -> None:
        self._open: dict[int, None] = {}
        self.used = False
        """Whether any tool call was opened in this reply."""

    def __contains__(self, slot: object) -> bool:
        return slot in self._open

    def __bool__(self) -> bool:
        return bool(self._open)

    def open(self, slot: int) -> None:
        """Note that a call streams in `slot` (again: it stays where it first opened)."""
        self._open.setdefault(slot, None)
        self.used = True

    @property
    def slots(self) -> list[int]:
        """The open slots, oldest first."""
        return list(self._open)

    def close(self, slot: int) -> list[StreamEvent]:
        """The end of the call in `slot`, if it is open."""
        if slot not in self._open:
            return []
        del self._open[slot]
        return [ToolCallEnd(slot)]

    def close_all(self) -> list[StreamEvent]:
        """The ends of every open call, by slot number."""
        closed: list[StreamEvent] = [ToolCallEnd(slot) for slot in sorted(self._open)]
        self._open.clear()
        return closed


class UsageTally:
    """The tokens of one reply, as the stream reports them (a count not given stays)."""

    def __init__(self) -> None:
        self.input_tokens = 0
        self.output_tokens = 0
        self.cached = 0
        self.reported = False

    def update(
        self,
        *,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cached: int | None = None,
    ) -> None:
        """Take the counts the stream gave; None leaves a count as it was."""
        if input_tokens is not None:
            self.input_tokens = input_tokens
        if output_tokens is not None:
            self.output_tokens = output_tokens
        if cached is not None:
            self.cached = cached
        self.reported = True

    def event(self) -> Usage:
        """The contract's `Usage` event."""
        return Usage(self.input_tokens, self.output_tokens, self.cached)


class ReplyReader(ABC, Generic[Item]):
    """Turns one SDK's stream items into contract events, keeping the shared books."""

    always_usage = False
    """Whether the closing events carry `Usage` even when the stream reported none."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.seen = False
        self.tools = ToolSlots()
        self.usage = UsageTally()

    @abstractmethod
    def read(self, item: Item) -> list[StreamEvent]:
        """The contract events for one item of the SDK's stream."""

    @abstractmethod
    def end(self) -> list[StreamEvent]:
        """The closing events once the SDK's stream is over (see `closing`)."""

    def closing(self, reason: str | None) -> list[StreamEvent]:
        """Open calls ended, usage and `Finish(reason)`; a stream that never said how it
        finished (`reason` None) was cut short, and that is an error."""
        if reason is None:
            raise errors.truncated(self.label, self.seen)
        tail = self.tools.close_all()
        if self.always_usage or self.usage.reported:
            tail.append(self.usage.event())
        tail.append(Finish(reason))
        return tail


class SdkStream(Protocol[Item_co]):
    """A streaming response of an SDK: an async context manager that yields items."""

    async def __aenter__(self) -> Any:
        """Enter the response (the SDKs return themselves)."""

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Any:
        """Close the response."""

    def __aiter__(self) -> AsyncIterator[Item_co]:
        """The items of the stream."""
        ...


async def stream_reply(
    start: Callable[[], Awaitable[SdkStream[Item]]],
    reader: ReplyReader[Item],
    sdk_error: type[Exception],
    to_error: Callable[[Exception], ProviderError],
) -> AsyncGenerator[StreamEvent, None]:
    """One attempt: open the SDK's stream, translate it, close the reply.

    The SDK's errors (`sdk_error`), transport errors and, once streaming, malformed
    data become the `ProviderError` that `to_error` describes.
    """
    try:
        stream = await start()
    except (sdk_error, httpx2.HTTPError) as exc:
        raise to_error(exc) from exc
    try:
        async with stream:
            async for item in stream:
                for event in reader.read(item):
                    yield event
    except (sdk_error, httpx2.HTTPError, *errors.MALFORMED) as exc:
        raise to_error(exc) from exc
    for event in reader.end():
        yield event


class StreamingProvider(Provider):
    """A model behind an HTTP endpoint whose SDK streams the reply."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.label = endpoint.label
        self.context_window = endpoint.context_window
        self.accepts_images = endpoint.images
        self._endpoint = endpoint

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Stream one reply, retrying failures that happen before any output. A model
        that takes no pictures gets a note in place of each (llm/vision.py)."""
        if not self.accepts_images:
            messages = without_images(request.messages, self.label)
            request = dataclasses.replace(request, messages=messages)
        return retrying(lambda: self._attempt(request), self._endpoint.retry)

    @abstractmethod
    def _attempt(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        """One try at the reply (see `stream_reply`)."""
