"""OpenTelemetry: a turn's spans, metrics and logs reach a collector of the test's own."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from karyi.agent.telemetry.recorder import TurnRecorder
from karyi.agent.telemetry.setup import Exporting, resolve_headers
from karyi.tools.context import ToolContext
from tests.support.harness import Harness
from tests.support.otlp_receiver import Receiver, attributes, serve

SECRET = "tok-3f9a7c21e5d4"
PROMPT = "What does the README say? my password is hunter2"
REPLIES = ['<tools><read><file src="README.md"/></read></tools>', "It says hello."]


@pytest.fixture
def collector() -> Iterator[tuple[str, Receiver]]:
    yield from serve()


def test_headers_come_from_the_secret_store_or_the_environment() -> None:
    got = resolve_headers(
        {"Authorization": "Bearer $KARYI{OTLP_TOKEN}", "X-Team": "${TEAM}", "X-Plain": "a"},
        {"OTLP_TOKEN": SECRET}.get,
        {"TEAM": "infra"},
    )
    assert got == {"Authorization": f"Bearer {SECRET}", "X-Team": "infra", "X-Plain": "a"}


async def test_a_turn_is_a_span_tree_with_no_text_and_no_secret(
    ctx: ToolContext, collector: tuple[str, Receiver]
) -> None:
    url, received = collector
    exporting = Exporting(url, {"Authorization": f"Bearer {SECRET}"})
    h = Harness(ctx, list(REPLIES))
    h.agent.events.subscribe(TurnRecorder(exporting, h.conv.id))
    await h.agent.run(PROMPT)
    exporting.flush()
    spans = received.spans()
    by_name = {s.name: [x for x in spans if x.name == s.name] for s in spans}
    [turn] = by_name["karyi.turn"]
    models = by_name["karyi.model_request"]
    [tool] = by_name["karyi.tool_call"]
    assert turn.parent_span_id == b"" and len(models) == 2
    assert all(m.parent_span_id == turn.span_id for m in models)
    first = min(models, key=lambda m: attributes(m)["karyi.step"])
    assert tool.parent_span_id == first.span_id
    t = attributes(turn)
    assert (t["karyi.turn.stop_reason"], t["karyi.turn.steps"]) == ("end_turn", 2)
    assert t["gen_ai.usage.input_tokens"] == 20 and t["karyi.session.id"] == h.conv.id
    assert attributes(first)["gen_ai.usage.output_tokens"] == 5
    a = attributes(tool)
    assert (a["karyi.tool.name"], a["karyi.tool.decision"], a["karyi.tool.success"]) == (
        "read",
        "auto",
        True,
    )
    assert tool.end_time_unix_nano >= tool.start_time_unix_nano
    assert {"karyi.tokens", "karyi.tool_calls", "karyi.sessions", "karyi.turns"} <= (
        received.metric_names()
    )
    assert "turn finished" in received.log_bodies()
    everything = b"".join(body for _, body, _ in received.posts)
    assert b"hunter2" not in everything and b"README" not in everything
    assert SECRET.encode() not in everything
    sent = [{k.lower(): v for k, v in headers.items()} for *_, headers in received.posts]
    assert all(h["authorization"] == f"Bearer {SECRET}" for h in sent)
    exporting.shutdown()


async def test_log_prompts_adds_the_text(ctx: ToolContext, collector: tuple[str, Receiver]) -> None:
    url, received = collector
    exporting = Exporting(url, None, log_prompts=True)
    h = Harness(ctx, list(REPLIES))
    h.agent.events.subscribe(TurnRecorder(exporting, h.conv.id))
    await h.agent.run("read the README")
    exporting.flush()
    turn = next(s for s in received.spans() if s.name == "karyi.turn")
    assert attributes(turn)["karyi.prompt"] == "read the README"
    tool = next(s for s in received.spans() if s.name == "karyi.tool_call")
    assert "README.md" in attributes(tool)["karyi.tool.params"]
    exporting.shutdown()


async def test_a_collector_that_is_down_does_not_slow_the_turn(ctx: ToolContext) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    exporting = Exporting(f"http://127.0.0.1:{port}", None, interval_ms=10, timeout=0.5)
    h = Harness(ctx, list(REPLIES))
    h.agent.events.subscribe(TurnRecorder(exporting, h.conv.id))
    start = time.monotonic()
    result = await h.agent.run(PROMPT)
    assert result.stop_reason == "end_turn" and time.monotonic() - start < 2
    exporting.settle()
    exporting.traces.force_flush()
    assert exporting.dropped >= 4  # the turn, two model requests and the call
    exporting.shutdown()
