"""Telemetry switched on in the settings: every agent the runtime makes is recorded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.agent.telemetry.setup import exporting_for
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.otlp_receiver import Receiver, attributes, serve
from tests.support.replies import Reply

PRICES = {"test-model": {"input": 1000, "output": 2000}}


@pytest.fixture
def collector() -> Iterator[tuple[str, Receiver]]:
    yield from serve()


async def test_the_runtime_records_turns_with_their_cost(
    fake_llm: FakeModelServer, ws_root: Path, collector: tuple[str, Receiver]
) -> None:
    url, received = collector
    telemetry = {"enabled": True, "otlpEndpoint": url, "headers": {}}
    settings = Settings().with_values(
        model="openai:test-model", baseUrl=fake_llm.openai_url, prices=PRICES, telemetry=telemetry
    )
    rt = Runtime.open(ws_root, settings)
    try:
        fake_llm.script(Reply(text="done", input_tokens=100, output_tokens=10))
        agent = rt.agent(rt.conversation(), approver=approve_all)
        await agent.run("hello")
    finally:
        await rt.aclose()
    exporting = exporting_for(True, url, {}, False, lambda _name: None)
    assert exporting is not None
    exporting.flush()
    spans = {s.name: attributes(s) for s in received.spans()}
    assert spans["karyi.turn"]["karyi.cost.usd"] == pytest.approx(0.12)
    assert spans["karyi.model_request"]["gen_ai.usage.input_tokens"] == 100
    assert "test-model" in spans["karyi.model_request"]["gen_ai.request.model"]
    exporting.shutdown()


def test_off_by_default() -> None:
    assert Settings().telemetry.enabled is False
    assert exporting_for(False, None, {}, False, lambda _name: None) is None


async def test_a_subagents_turn_is_a_span_under_the_call_that_ran_it(
    fake_llm: FakeModelServer, ws_root: Path, collector: tuple[str, Receiver]
) -> None:
    url, received = collector
    telemetry = {"enabled": True, "otlpEndpoint": url, "headers": {}}
    settings = Settings().with_values(
        model="openai:test-model",
        baseUrl=fake_llm.openai_url,
        dialect="toolsxml",
        telemetry=telemetry,
    )
    (ws_root / "notes.txt").write_text("hi\n")
    fake_llm.script(
        Reply(text='<tools><call_subagent agent_name="explore" task="Where is hi?"/></tools>'),
        Reply(text='<tools><grep pattern="hi" /></tools>'),
        Reply(text="In notes.txt."),
        Reply(text="explore says: notes.txt."),
    )
    rt = Runtime.open(ws_root, settings)
    try:
        await rt.agent(rt.conversation(), approver=approve_all).run("where is hi?")
    finally:
        await rt.aclose()
    exporting = exporting_for(True, url, {}, False, lambda _name: None)
    assert exporting is not None
    exporting.flush()
    spans = received.spans()
    by_id = {s.span_id: s for s in spans}

    def tool(name: str) -> Any:
        return next(s for s in spans if attributes(s).get("karyi.tool.name") == name)

    [sub] = [s for s in spans if s.name == "karyi.subagent"]
    call = tool("call_subagent")
    assert sub.parent_span_id == call.span_id and sub.trace_id == call.trace_id
    assert attributes(sub)["karyi.agent.name"] == "explore"
    assert attributes(sub)["karyi.turn.stop_reason"] == "end_turn"
    grep = tool("grep")  # the subagent's own call, under its own model request
    model = by_id[grep.parent_span_id]
    assert model.name == "karyi.model_request" and model.parent_span_id == sub.span_id
    [turn] = [s for s in spans if s.name == "karyi.turn"]
    assert by_id[call.parent_span_id].parent_span_id == turn.span_id
    assert call.end_time_unix_nano >= sub.end_time_unix_nano
    exporting.shutdown()
