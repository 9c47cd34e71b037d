"""The model server stalls: each silence is told as such, and retrying has a cap."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from karyi.agent.events import Notice
from karyi.agent.turn.reply import ReplyReader
from karyi.llm.base import Provider, ProviderError, Retrying
from karyi.llm.retry import RetryPolicy, retrying
from tests.llm.test_streaming import HELLO
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Fault
from tests.support.streams import Sleeps, collect

MakeProvider = Callable[..., Provider]


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_model_stalls_then_answers_with_a_visible_retry(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider, sleeps: Sleeps
) -> None:
    fake_llm.script("at last")
    fake_llm.fail_next(Fault(stall=True, after=1))
    events = await collect(make_provider(api, read_timeout=0.2), HELLO)
    [retry] = [e for e in events if isinstance(e, Retrying)]
    assert (
        retry.error
        == f"{api}:fake-model: the model has sent nothing for 0.2s (llm.idleTimeoutSeconds)"
    )
    assert len(fake_llm.requests) == 2


def test_model_stall_notice_says_nothing_was_sent_and_that_it_retries() -> None:
    notices: list[object] = []
    reader = ReplyReader(None, None, None, notices.append)  # type: ignore[arg-type]
    error = "openai:m: the model has sent nothing for 60s (llm.idleTimeoutSeconds)"
    reader.on_stream(Retrying(1, 1.0, error))
    assert notices == [Notice("retry", f"{error}, retrying in 1.0s (attempt 1)")]


async def test_model_keeps_stalling_until_the_retry_cap() -> None:
    now = [0.0]

    async def stall_once() -> None:
        now[0] += 60.0  # each try waits out a 60 s silence
        raise ProviderError("timeout", "m: the model has sent nothing for 60s", retryable=True)

    async def attempt():  # type: ignore[no-untyped-def]
        await stall_once()
        yield  # pragma: no cover

    async def wait(delay: float) -> None:
        now[0] += delay

    policy = RetryPolicy(
        max_attempts=20, max_total=180.0, sleep=wait, clock=lambda: now[0], random=lambda: 0.5
    )
    retries: list[Retrying] = []
    with pytest.raises(ProviderError) as gave_up:
        async for event in retrying(attempt, policy):
            assert isinstance(event, Retrying)
            retries.append(event)
    assert len(retries) == 2
    assert gave_up.value.message == (
        "m: the model has sent nothing for 60s "
        "(gave up after 3 attempts in 183s: llm.maxRetrySeconds is 180)"
    )
