"""Every fault a model server can throw at both SDK providers: retried, or a clear error.

Retries never wait here: the providers get a sleep that records the delay and returns.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable

import pytest

from karyi.llm.base import (
    Finish,
    Message,
    Provider,
    ProviderError,
    Request,
    Retrying,
    StreamEvent,
    TextChunk,
    ToolCallEnd,
    Usage,
)
from karyi.llm.streaming import ReplyReader, ToolSlots
from tests.support.fake_model_server import WAIT, FakeModelServer
from tests.support.replies import Fault, Reply
from tests.support.streams import Sleeps, collect, text_of

MakeProvider = Callable[..., Provider]
HELLO = Request([Message("user", "hello")])
APIS = pytest.mark.parametrize("api", ["openai", "anthropic"])
# The index of the first SSE event that carries reply text: OpenAI sends a role-only chunk
# first; Anthropic sends message_start, ping and content_block_start first.
FIRST_TEXT = {"openai": 1, "anthropic": 3}


async def failure(provider: Provider, request: Request = HELLO) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        await collect(provider, request)
    return caught.value


@APIS
async def test_rate_limit_is_retried_after_the_servers_retry_after(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider, sleeps: Sleeps
) -> None:
    fake_llm.script("ok")
    fake_llm.fail_next(Fault(status=429, retry_after="7", message="slow down"))
    events = await collect(make_provider(api), HELLO)
    assert events[0] == Retrying(1, 7.0, f"{api}:fake-model: rate limited (HTTP 429): slow down")
    assert events[1:] == [TextChunk("ok"), Usage(11, 7, 0), Finish("stop")]
    assert sleeps.delays == [7.0]
    assert len(fake_llm.requests) == 2


@APIS
async def test_server_errors_back_off_exponentially_then_succeed(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider, sleeps: Sleeps
) -> None:
    fake_llm.script("ok")
    fake_llm.fail_next(Fault(status=500), Fault(status=502))
    events = await collect(make_provider(api, max_attempts=3), HELLO)
    retries = [e for e in events if isinstance(e, Retrying)]
    assert [(r.attempt, r.delay) for r in retries] == [(1, 1.0), (2, 2.0)]
    assert "server error (HTTP 502)" in retries[1].error
    assert text_of(events) == "ok"
    assert sleeps.delays == [1.0, 2.0]


@APIS
async def test_exhausted_retries_raise_the_last_error(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.fail_next(*[Fault(status=503, message="overloaded")] * 3)
    error = await failure(make_provider(api, max_attempts=3))
    assert (error.kind, error.retryable, error.partial) == ("server", True, False)
    assert error.message == (
        f"{api}:fake-model: server error (HTTP 503): overloaded (gave up after 3 attempts)"
    )
    assert len(fake_llm.requests) == 3


@APIS
async def test_a_retry_after_longer_than_the_limit_is_not_waited_for(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider, sleeps: Sleeps
) -> None:
    fake_llm.fail_next(Fault(status=429, retry_after="3600"))
    error = await failure(make_provider(api))
    assert error.kind == "rate_limit" and error.retryable
    assert "the server asked to wait 3600s, more than 120s" in error.message
    assert sleeps.delays == [] and len(fake_llm.requests) == 1


@APIS
@pytest.mark.parametrize("status", [401, 403])
async def test_auth_failures_are_not_retried_and_name_the_key(
    api: str, status: int, fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.fail_next(Fault(status=status, message="invalid x-api-key"))
    error = await failure(make_provider(api))
    assert (error.kind, error.retryable) == ("auth", False)
    assert "invalid x-api-key; check KARYI_API_KEY" in error.message
    assert len(fake_llm.requests) == 1


@APIS
async def test_an_auth_failure_never_echoes_the_key(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    key = "sk-live-7Hq2Zr91xVb33Kd0pLm5"
    fake_llm.fail_next(
        Fault(status=401, message=f"Incorrect API key provided: {key}. Also: sk-live-7Hq2****Lm5")
    )
    error = await failure(make_provider(api, api_key=key))
    assert error.kind == "auth"
    assert key not in error.message and "sk-live-7Hq2" not in error.message
    assert "Incorrect API key provided: [key redacted]" in error.message
    assert "check KARYI_API_KEY" in error.message


@APIS
@pytest.mark.parametrize("status", [400, 404, 422])
async def test_bad_requests_carry_the_servers_message(
    api: str, status: int, fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.fail_next(Fault(status=status, message="model 'gpt-9' does not exist"))
    error = await failure(make_provider(api))
    assert (error.kind, error.retryable) == ("bad_request", False)
    assert error.message == (
        f"{api}:fake-model: the server refused the request (HTTP {status}): "
        "model 'gpt-9' does not exist"
    )


@APIS
async def test_a_reset_before_any_output_is_retried_transparently(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script("recovered")
    fake_llm.fail_next(Fault(reset=True, after=1))
    events = await collect(make_provider(api), HELLO)
    assert isinstance(events[0], Retrying) and "connection" in events[0].error
    assert text_of(events) == "recovered"


async def _consume(provider: Provider, seen: list[StreamEvent], first: asyncio.Event) -> None:
    async for event in provider.stream(HELLO):
        seen.append(event)
        if isinstance(event, TextChunk):
            first.set()


async def _fail_after_first_text(
    api: str, fake_llm: FakeModelServer, provider: Provider, fault: Fault
) -> tuple[list[StreamEvent], ProviderError]:
    """Stream until the first text arrives, then let the server's fault happen."""
    gate = threading.Event()
    fake_llm.script(Reply(text=["Hello", " world"]))
    fake_llm.fail_next(Fault(**{**fault.__dict__, "after": FIRST_TEXT[api] + 1, "gate": gate}))
    seen: list[StreamEvent] = []
    first = asyncio.Event()
    task = asyncio.create_task(_consume(provider, seen, first))
    await asyncio.wait_for(first.wait(), WAIT)
    gate.set()
    with pytest.raises(ProviderError) as caught:
        await asyncio.wait_for(task, WAIT)
    return seen, caught.value


@APIS
@pytest.mark.parametrize(
    ("fault", "kind", "retryable"),
    [
        (Fault(reset=True), "connection", True),
        (Fault(close=True), "connection", True),
        (Fault(malformed=True), "malformed", False),
        (Fault(error_event=True, message="Overloaded"), "server", True),
    ],
    ids=["reset", "close", "malformed", "error-event"],
)
async def test_a_fault_after_output_started_is_partial_and_not_retried(
    api: str,
    fault: Fault,
    kind: str,
    retryable: bool,
    fake_llm: FakeModelServer,
    make_provider: MakeProvider,
) -> None:
    seen, error = await _fail_after_first_text(api, fake_llm, make_provider(api), fault)
    assert seen == [TextChunk("Hello")]
    assert (error.kind, error.retryable, error.partial) == (kind, retryable, True)
    assert len(fake_llm.requests) == 1


@APIS
async def test_malformed_stream_before_output_is_not_retried(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script("never seen")
    fake_llm.fail_next(Fault(malformed=True, after=1))
    error = await failure(make_provider(api))
    assert (error.kind, error.partial) == ("malformed", False)
    assert "malformed stream" in error.message
    assert len(fake_llm.requests) == 1


@APIS
async def test_a_stalled_stream_times_out_and_each_attempt_is_closed(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script("never finished")
    fake_llm.fail_next(Fault(stall=True, after=1), Fault(stall=True, after=1))
    provider = make_provider(api, read_timeout=0.2, max_attempts=2)
    error = await failure(provider)
    assert (error.kind, error.retryable, error.partial) == ("timeout", True, False)
    assert error.message == (
        f"{api}:fake-model: the model has sent nothing for 0.2s (llm.idleTimeoutSeconds) "
        "(gave up after 2 attempts)"
    )
    for received in fake_llm.requests:
        assert await asyncio.to_thread(received.disconnected.wait, WAIT)


@APIS
async def test_a_refused_connection_is_a_connection_error(
    api: str, make_provider: MakeProvider, sleeps: Sleeps
) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    error = await failure(make_provider(api, base_url=f"http://127.0.0.1:{port}", max_attempts=2))
    assert (error.kind, error.retryable) == ("connection", True)
    assert "connection refused" in error.message
    assert len(sleeps.delays) == 1


@APIS
async def test_cancelling_the_consumer_closes_the_http_stream(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script(Reply(text=["Hello", " never"]))
    fake_llm.fail_next(Fault(stall=True, after=FIRST_TEXT[api] + 1))
    seen: list[StreamEvent] = []
    first = asyncio.Event()
    task = asyncio.create_task(_consume(make_provider(api), seen, first))
    await asyncio.wait_for(first.wait(), WAIT)  # streaming: text arrives while the server stalls
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    [received] = fake_llm.requests
    assert await asyncio.to_thread(received.disconnected.wait, WAIT)
    assert seen == [TextChunk("Hello")]


@APIS
async def test_breaking_out_of_the_stream_closes_it_too(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script(Reply(text=["Hello", " never"]))
    fake_llm.fail_next(Fault(stall=True, after=FIRST_TEXT[api] + 1))
    stream = make_provider(api).stream(HELLO)
    async for event in stream:
        assert event == TextChunk("Hello")
        break
    await stream.aclose()  # type: ignore[attr-defined]
    assert await asyncio.to_thread(fake_llm.requests[0].disconnected.wait, WAIT)


@APIS
async def test_a_stall_after_output_started_is_a_partial_timeout(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    provider = make_provider(api, read_timeout=0.2)
    seen, error = await _fail_after_first_text(api, fake_llm, provider, Fault(stall=True))
    assert seen == [TextChunk("Hello")]
    assert (error.kind, error.retryable, error.partial) == ("timeout", True, True)


def test_tool_slots_close_once_and_all_by_number() -> None:
    fresh = ToolSlots()
    assert not fresh and not fresh.used
    slots = ToolSlots()
    for slot in (2, 0, 2):
        slots.open(slot)
    assert slots.slots == [2, 0] and slots.used
    assert slots.close(2) == [ToolCallEnd(2)] and slots.close(2) == []
    slots.open(1)
    assert slots.close_all() == [ToolCallEnd(0), ToolCallEnd(1)] and not slots


class _Reader(ReplyReader[str]):
    def read(self, item: str) -> list[StreamEvent]:
        self.seen = True
        return [TextChunk(item)]

    def end(self) -> list[StreamEvent]:
        return self.closing("stop")


def test_closing_ends_calls_then_usage_then_finish_or_reports_a_cut_stream() -> None:
    reader = _Reader("m")
    reader.tools.open(0)
    assert reader.closing("tool_calls") == [ToolCallEnd(0), Finish("tool_calls")]
    reader.usage.update(input_tokens=5, output_tokens=2)
    reader.usage.update(cached=1)
    assert reader.closing("stop") == [Usage(5, 2, 1), Finish("stop")]
    with pytest.raises(ProviderError, match="without any stream events"):
        reader.closing(None)
    reader.read("x")
    with pytest.raises(ProviderError, match="ended before the model finished") as cut:
        reader.closing(None)
    assert cut.value.retryable
