"""A stand-in for a model the settings cannot build, so stored sessions still open.

Reading a past session needs no model: a front end that loads one while no API key (or
no usable model) is configured gets this placeholder, and only a new turn fails, with
the configuration error that says what to set (docs/reliability.md).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from karyi.llm.base import Provider, ProviderError, Request, StreamEvent


class Unconfigured(Provider):
    """No usable model: every reply fails at once with the error that explains why."""

    def __init__(self, error: ProviderError) -> None:
        self.error = error
        self.label = "no model configured"

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Fail with the configuration error; nothing is sent anywhere."""
        return self._fail()

    async def _fail(self) -> AsyncIterator[StreamEvent]:
        nothing: tuple[StreamEvent, ...] = ()
        for event in nothing:
            yield event
        raise self.error
