"""What the provider layer costs on top of the SDKs it wraps (issue [agent], providers).

A reply of 3,000 small text deltas is streamed from the fake model server (real HTTP,
real SSE, on 127.0.0.1). The baseline is the bare SDK iterating the same stream; the
measured figure is `Provider.stream` (retry wrapper, event mapping, contract events).
The ratio is the wrapper's overhead; the server and the SDK's parsing are in both.
The script provider (the "instant model" of demos and loop benchmarks) is compared with
an async generator that yields ready-made events.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import anthropic
import openai

# The repository root, for tests.support: tests/ itself on the path would stand in
# for packages named like its folders (tests/acp for the ACP SDK, tests/secrets for
# the standard library's secrets).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from karyi.llm.anthropic_api import AnthropicProvider
from karyi.llm.base import Message, Request, StreamEvent, TextChunk
from karyi.llm.endpoint import Endpoint
from karyi.llm.openai_compat import OpenAICompatProvider
from karyi.llm.script import ScriptProvider, parse_script
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

DELTAS = 3000
RUNS = 5
SMOKE: dict[str, object] = {"DELTAS": 50, "RUNS": 1}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""
HELLO = Request([Message("user", "hello")])


def report(line: str) -> None:
    print(line)


async def timed_pair(
    baseline: Callable[[], Awaitable[int]],
    measured: Callable[[], Awaitable[int]],
    server: FakeModelServer,
) -> tuple[float, float]:
    """Median seconds of each, after a warm-up, alternating so drift hits both alike."""
    times: dict[int, list[float]] = {0: [], 1: []}
    for round_ in range(RUNS + 1):
        for which, run in enumerate((baseline, measured)):
            server.script(Reply(text=[f"w{i} " for i in range(DELTAS)]))
            start = time.perf_counter()
            count = await run()
            if round_:
                times[which].append(time.perf_counter() - start)
            assert count >= DELTAS, count
    return statistics.median(times[0]), statistics.median(times[1])


async def drain(events: AsyncIterator[object]) -> int:
    return sum([1 async for _ in events])


async def sdk_pair(server: FakeModelServer, api: str) -> tuple[float, float]:
    endpoint = Endpoint(
        "fake-model",
        "sk-bench",
        f"{api}:fake-model",
        base_url=server.openai_url if api == "openai" else server.anthropic_url,
    )
    if api == "openai":
        raw_oa = openai.AsyncOpenAI(api_key="sk", base_url=server.openai_url, max_retries=0)

        async def raw() -> int:
            stream = await raw_oa.chat.completions.create(
                model="fake-model", messages=[{"role": "user", "content": "hello"}], stream=True
            )
            return await drain(stream)

        provider: OpenAICompatProvider | AnthropicProvider = OpenAICompatProvider(endpoint)
    else:
        raw_an = anthropic.AsyncAnthropic(api_key="sk", base_url=server.anthropic_url)

        async def raw() -> int:
            stream = await raw_an.messages.create(
                model="fake-model",
                max_tokens=100,
                messages=[{"role": "user", "content": "hello"}],
                stream=True,
            )
            return await drain(stream)

        provider = AnthropicProvider(endpoint)

    async def wrapped() -> int:
        return await drain(provider.stream(HELLO))

    result = await timed_pair(raw, wrapped, server)
    await provider.aclose()
    return result


async def script_pair() -> tuple[float, float]:
    text = "".join(f"w{i} " for i in range(DELTAS))
    events: list[StreamEvent] = [TextChunk(text[i : i + 12]) for i in range(0, len(text), 12)]

    async def ready() -> AsyncIterator[StreamEvent]:
        for event in events:
            yield event

    async def timed(make: Callable[[], AsyncIterator[StreamEvent]]) -> float:
        times = []
        for _ in range(RUNS):
            start = time.perf_counter()
            await drain(make())
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    script = parse_script(f"replies: {[text] * RUNS!r}", "bench.yaml")
    provider = ScriptProvider(script)
    return await timed(ready), await timed(lambda: provider.stream(HELLO))


async def run() -> dict[str, float]:
    server = FakeModelServer().start()
    ratios: dict[str, float] = {}
    try:
        report(f"{'provider':<11}{'bare SDK':>12}{'Provider':>12}{'per delta':>12}{'ratio':>8}")
        for api in ("openai", "anthropic"):
            baseline, measured = await sdk_pair(server, api)
            ratios[api] = measured / baseline
            per = measured / DELTAS * 1e6
            report(
                f"{api:<11}{baseline * 1000:>10.1f}ms{measured * 1000:>10.1f}ms"
                f"{per:>10.1f}µs{ratios[api]:>8.2f}x"
            )
    finally:
        server.stop()
    baseline, measured = await script_pair()
    ratios["script"] = measured / baseline
    report(
        f"{'script':<11}{baseline * 1000:>10.2f}ms{measured * 1000:>10.2f}ms"
        f"{measured / DELTAS * 1e6:>10.2f}µs{ratios['script']:>8.2f}x"
    )
    report("target: the provider layer adds <= 25% to the bare SDK's streaming time")
    return ratios


def main() -> dict[str, float]:
    """Print the figures; return the ratios (wrapped / baseline)."""
    return asyncio.run(run())


if __name__ == "__main__":
    main()
