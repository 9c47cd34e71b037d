"""Telemetry switched on in the settings: every agent the runtime makes is recorded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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
