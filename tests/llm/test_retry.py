"""Backoff, jitter, Retry-After and the partial-output rule, without any server."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable

import pytest

from karyi.llm.base import Finish, ProviderError, Retrying, StreamEvent, TextChunk
from karyi.llm.errors import ApiError
from karyi.llm.retry import RetryPolicy, retrying
from tests.support.streams import Sleeps

FLAKY = ApiError("server", "boom", retryable=True)


def test_backoff_doubles_up_to_the_cap_with_jitter_around_it() -> None:
    middle = RetryPolicy(max_attempts=10, base_delay=1, max_delay=5, random=lambda: 0.5)
    assert [middle.delay(n, FLAKY) for n in range(1, 6)] == [1, 2, 4, 5, 5]
    low = RetryPolicy(base_delay=1, jitter=0.2, random=lambda: 0.0)
    high = RetryPolicy(base_delay=1, jitter=0.2, random=lambda: 1.0)
    assert (low.delay(2, FLAKY), high.delay(2, FLAKY)) == (pytest.approx(1.6), pytest.approx(2.4))


def test_no_delay_for_errors_that_cannot_succeed_or_after_the_last_attempt() -> None:
    policy = RetryPolicy(max_attempts=3)
    assert policy.delay(1, ApiError("auth", "no")) is None
    assert policy.delay(3, FLAKY) is None


def test_retry_after_wins_over_backoff_unless_too_long() -> None:
    policy = RetryPolicy(max_retry_after=60)
    assert policy.delay(1, ApiError("rate_limit", "x", retryable=True, retry_after=12.5)) == 12.5
    assert policy.delay(1, ApiError("rate_limit", "x", retryable=True, retry_after=61)) is None


def _attempts(
    *outcomes: list[StreamEvent] | ProviderError,
) -> Callable[[], AsyncGenerator[StreamEvent, None]]:
    """An attempt factory: each call streams the next outcome's events or raises it."""
    queue = list(outcomes)

    async def attempt() -> AsyncGenerator[StreamEvent, None]:
        outcome = queue.pop(0)
        if isinstance(outcome, ProviderError):
            raise outcome
        for event in outcome:
            yield event

    return attempt


async def test_failures_before_output_are_retried_with_an_event_each() -> None:
    sleeps = Sleeps()
    policy = RetryPolicy(sleep=sleeps, random=lambda: 0.5)
    attempt = _attempts(FLAKY, FLAKY, [TextChunk("ok"), Finish("stop")])
    events = [e async for e in retrying(attempt, policy)]
    assert events == [
        Retrying(1, 1.0, "boom"),
        Retrying(2, 2.0, "boom"),
        TextChunk("ok"),
        Finish("stop"),
    ]
    assert sleeps.delays == [1.0, 2.0]


async def test_a_failure_after_output_is_raised_as_partial() -> None:
    async def attempt() -> AsyncGenerator[StreamEvent, None]:
        yield TextChunk("half")
        raise FLAKY

    seen: list[StreamEvent] = []
    with pytest.raises(ProviderError) as caught:
        async for event in retrying(attempt, RetryPolicy(sleep=Sleeps())):
            seen.append(event)
    assert seen == [TextChunk("half")]
    assert (caught.value.kind, caught.value.retryable, caught.value.partial) == (
        "server",
        True,
        True,
    )
