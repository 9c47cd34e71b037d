"""Retrying a model call: exponential backoff with jitter, Retry-After, bounded attempts.

A call is retried only while nothing has been streamed to the consumer: once text or
a tool-call fragment has gone out, a retry would repeat it, so the failure is raised
with `partial=True` and the caller decides (the agent keeps what arrived and says so).
Each retry is announced with a `Retrying` event before the wait (`attempt` 1 is the
first retry, i.e. the second try). The SDKs' own retries are switched off
(max_retries=0) so these are the only ones.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field

from karyi.llm.base import ProviderError, Retrying, StreamEvent

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait. Tests pass tiny delays or their own `sleep`."""

    max_attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 120.0
    """A server asking for a longer wait than this is not waited for: the error is raised."""
    max_total: float = 180.0
    """Seconds from the first try after which no retry starts: failed tries that each
    waited out a stall add up, and the user is told why it stopped instead."""
    jitter: float = 0.2
    """Each computed delay is spread by ±jitter (a fraction) so clients do not retry in step."""
    sleep: Sleep = field(default=asyncio.sleep, compare=False)
    random: Callable[[], float] = field(default=random.random, compare=False)
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)

    def delay(self, retry: int, error: ProviderError) -> float | None:
        """Seconds to wait before retry number `retry` (1 = first), or None to give up."""
        if not error.retryable or retry >= self.max_attempts:
            return None
        asked = getattr(error, "retry_after", None)
        if asked is not None:
            return float(asked) if asked <= self.max_retry_after else None
        backoff = min(self.max_delay, self.base_delay * 2.0 ** (retry - 1))
        spread = 1 - self.jitter + 2 * self.jitter * self.random()
        return min(self.max_delay, backoff * spread)


def _gave_up(
    error: ProviderError, attempts: int, policy: RetryPolicy, capped: float | None
) -> ProviderError:
    """`capped`: the seconds spent when the next wait would pass `max_total`."""
    asked = getattr(error, "retry_after", None)
    if capped is not None:
        why = (
            f"gave up after {attempts} attempt{'s' if attempts != 1 else ''} in {capped:.0f}s: "
            f"llm.maxRetrySeconds is {policy.max_total:g}"
        )
    elif asked is not None and asked > policy.max_retry_after:
        why = f"the server asked to wait {asked:.0f}s, more than {policy.max_retry_after:.0f}s"
    else:
        why = f"gave up after {attempts} attempt{'s' if attempts != 1 else ''}"
    return ProviderError(error.kind, f"{error.message} ({why})", retryable=True)


async def retrying(
    attempt: Callable[[], AsyncGenerator[StreamEvent, None]], policy: RetryPolicy
) -> AsyncIterator[StreamEvent]:
    """Run `attempt()` until it streams to the end, retrying failures before any output."""
    retry = 0
    began = policy.clock()
    while True:
        started = False
        try:
            async with aclosing(attempt()) as events:
                async for event in events:
                    started = True
                    yield event
            return
        except ProviderError as error:
            if started:
                raise ProviderError(
                    error.kind, error.message, retryable=error.retryable, partial=True
                ) from error
            if not error.retryable:
                raise
            retry += 1
            wait = policy.delay(retry, error)
            spent = policy.clock() - began
            if wait is None or spent + wait >= policy.max_total:
                capped = None if wait is None else spent
                raise _gave_up(error, retry, policy, capped) from error
            message = error.message
        yield Retrying(retry, wait, message)
        await policy.sleep(wait)
