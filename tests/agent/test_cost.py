"""Cost: the usage event carries the turn's and the session's cost, the session keeps
its total, and `agent.maxCostPerTurn` stops a turn cleanly (the work so far kept, the
user told why)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from karyi.agent.events import Error, Event, Notice, TurnFinished, Usage
from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.agent.session.conversation import Conversation
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

READ = '<tools><read><file src="README.md"/></read></tools>'
PRICES = {"test-model": {"input": 1000, "cachedInput": 100, "output": 2000}}
"""$0.001 per input token, $0.0001 cached, $0.002 per output token."""
Make = Callable[..., Runtime]


@pytest_asyncio.fixture
async def make(fake_llm: FakeModelServer, ws_root: Path) -> AsyncIterator[Make]:
    made: list[Runtime] = []

    def build(**values: Any) -> Runtime:
        settings = Settings().with_values(
            model="openai:test-model", baseUrl=fake_llm.openai_url, **values
        )
        made.append(Runtime.open(ws_root, settings))
        return made[-1]

    yield build
    for rt in made:
        await rt.aclose()


async def test_usage_carries_the_turn_and_session_cost(
    make: Make, fake_llm: FakeModelServer
) -> None:
    rt = make(prices=PRICES)
    fake_llm.script(
        Reply(text="one", input_tokens=100, cached_tokens=50, output_tokens=10),
        Reply(text="two", input_tokens=200, output_tokens=20),
    )
    conv = rt.conversation()
    agent = rt.agent(conv, approver=approve_all)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    first = await agent.run("a")
    assert first.cost == pytest.approx(50 * 0.001 + 50 * 0.0001 + 10 * 0.002)
    await agent.run("b")
    usage = [e for e in seen if isinstance(e, Usage)]
    assert [u.turn_cost for u in usage] == pytest.approx([0.075, 0.24])
    assert [u.session_cost for u in usage] == pytest.approx([0.075, 0.315])
    done = [e for e in seen if isinstance(e, TurnFinished)]
    assert done[-1].to_dict()["sessionCost"] == pytest.approx(0.315)
    assert Conversation.resume(rt.store, conv.id).cost == pytest.approx(0.315)


async def test_a_turn_stops_at_its_cost_limit_with_the_work_kept(
    make: Make, fake_llm: FakeModelServer
) -> None:
    rt = make(prices=PRICES, agent={"maxCostPerTurn": 1.0})
    fake_llm.script(Reply(text=READ, input_tokens=1000, output_tokens=100))
    conv = rt.conversation()
    agent = rt.agent(conv, approver=approve_all)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    result = await agent.run("read it")
    assert result.stop_reason == "cost_limit" and result.cost == pytest.approx(1.2)
    assert len(fake_llm.requests) == 1
    (error,) = [e for e in seen if isinstance(e, Error)]
    assert error == Error(
        "cost_limit",
        "Stopped: this turn cost $1.2000, over agent.maxCostPerTurn ($1). "
        "The work so far is kept; say 'continue' to let the agent go on.",
    )
    stored = Conversation.resume(rt.store, conv.id).messages
    assert "Hello." in stored[-1].content  # the read's result is in the session
    fake_llm.script(Reply(text="continued", input_tokens=10, output_tokens=1))
    again = await agent.run("continue")
    assert again.final_answer == "continued" and "Hello." in str(fake_llm.requests[1].body)


async def test_without_a_price_the_limit_cannot_apply_and_the_user_is_told_once(
    make: Make, fake_llm: FakeModelServer
) -> None:
    rt = make(agent={"maxCostPerTurn": 0.01})
    fake_llm.script(Reply(text="a"), Reply(text="b"))
    agent = rt.agent(rt.conversation(), approver=approve_all)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    await agent.run("x")
    await agent.run("y")
    notes = [e.message for e in seen if isinstance(e, Notice) and e.topic == "cost"]
    assert notes == [
        "no price is known for openai:test-model: agent.maxCostPerTurn cannot apply; "
        "set its prices in settings `prices` (docs/workflow.md#cost)"
    ]
    assert all(e.turn_cost is None for e in seen if isinstance(e, Usage))


async def test_a_subagents_cost_counts_in_the_turn_that_ran_it(
    make: Make, fake_llm: FakeModelServer
) -> None:
    rt = make(prices=PRICES)
    fake_llm.script(
        Reply(
            text='<tools><call_subagent agent_name="explore" task="Where?"/></tools>',
            input_tokens=100,
            output_tokens=10,
        ),
        Reply(text="In src/main.py.", input_tokens=200, output_tokens=20),
        Reply(text="Found it.", input_tokens=300, output_tokens=30),
    )
    agent = rt.agent(rt.conversation(), approver=approve_all)
    result = await agent.run("where is hi printed?")
    parent = (100 + 300) * 0.001 + (10 + 30) * 0.002
    child = 200 * 0.001 + 20 * 0.002
    assert result.cost == pytest.approx(parent + child)
