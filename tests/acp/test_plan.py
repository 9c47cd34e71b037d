"""The task list over ACP: each `todo_write` becomes a `plan` update (the whole list,
`done` as `completed`), in order, before the prompt answers."""

from __future__ import annotations

import json
from pathlib import Path

from tests.acp.conftest import Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply
from tests.support.workflow import FIRST, SECOND, todo_reply


async def test_task_list_arrives_as_plan_updates_in_order(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(todo_reply(*FIRST), todo_reply(*SECOND), Reply(text="Done."))
    agent = await karyi_acp()
    sid = await agent.new_session()
    response = await agent.say(sid, "fix it")
    assert response.stop_reason == "end_turn"
    plans = [[(e.content, e.status) for e in u.entries] for u in agent.client.of("plan")]
    assert plans == [
        [("Read", "in_progress"), ("Fix", "pending")],
        [("Read", "completed"), ("Fix", "completed")],
    ]


async def test_usage_updates_carry_the_session_cost(
    karyi_acp: Start, fake_llm: FakeModelServer, _isolated_config: Path
) -> None:
    prices = {"test-model": {"input": 1000, "output": 2000}}
    (_isolated_config / "settings.json").write_text(json.dumps({"prices": prices}))
    fake_llm.script(Reply(text="hi", input_tokens=100, output_tokens=10))
    agent = await karyi_acp()
    sid = await agent.new_session()
    await agent.say(sid, "hello")
    (usage,) = agent.client.of("usage_update")
    assert usage.cost is not None and (usage.cost.amount, usage.cost.currency) == (0.12, "USD")
