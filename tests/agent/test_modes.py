"""Plan mode: only reading tools are offered, a mutating call is refused with a clear
message, the answer is kept as the plan, and the act turn carries it (as the user left
it)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from karyi.agent.events import Event, Mode, ToolDone, TurnStarted
from karyi.agent.prompting.modes import UnknownMode
from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.agent.session.conversation import Conversation
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

EDIT = (
    "<tools><edit><file src=\"src/main.py\"><find>print('hi')</find>"
    "<replace>print('hello')</replace></file></edit></tools>"
)


@pytest_asyncio.fixture
async def runtime(fake_llm: FakeModelServer, ws_root: Path) -> AsyncIterator[Runtime]:
    settings = Settings().with_values(model="openai:test-model", baseUrl=fake_llm.openai_url)
    rt = Runtime.open(ws_root, settings)
    yield rt
    await rt.aclose()


async def test_plan_mode_refuses_an_edit_and_the_act_turn_carries_the_plan(
    runtime: Runtime, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    before = (ws_root / "src/main.py").read_text()
    fake_llm.script(
        Reply(text=EDIT),
        Reply(text="Plan:\n1. change the greeting in src/main.py"),
        Reply(text=EDIT),
        Reply(text="Done."),
    )
    conv = runtime.conversation()
    agent = runtime.agent(conv, approver=approve_all)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    agent.set_mode("plan")
    result = await agent.run("make it say hello")
    assert result.final_answer == "Plan:\n1. change the greeting in src/main.py"
    assert (ws_root / "src/main.py").read_text() == before
    refused = next(e for e in seen if isinstance(e, ToolDone))
    assert refused.decision == "denied" and refused.result.error is not None
    assert refused.result.error.code == "permission_denied"
    assert refused.result.error.message.startswith("edit is not available in plan mode")
    system = fake_llm.requests[0].body["messages"][0]["content"]
    assert "You are in PLAN mode" in system and "### edit" not in system
    assert "### read" in system and "### todo_write" in system
    assert (
        "edit is not available in plan mode" in fake_llm.requests[1].body["messages"][-1]["content"]
    )
    assert conv.plan == result.final_answer
    assert Conversation.resume(runtime.store, conv.id).mode == "plan"

    agent.set_mode("act", plan="1. change the greeting to hello, world")
    assert [e for e in seen if isinstance(e, Mode)] == [
        Mode(conv.id, "plan", ""),
        Mode(conv.id, "act", "1. change the greeting to hello, world"),
    ]
    await agent.run("go")
    asked = fake_llm.requests[2].body["messages"]
    assert "You are in PLAN mode" not in asked[0]["content"]
    assert asked[-1]["content"] == (
        "Carry out this plan, agreed in plan mode:\n\n1. change the greeting to hello, world\n\ngo"
    )
    assert (ws_root / "src/main.py").read_text() != before
    assert [e.mode for e in seen if isinstance(e, TurnStarted)] == ["plan", "act"]
    assert conv.plan == ""


async def test_an_unknown_mode_is_refused(runtime: Runtime) -> None:
    agent = runtime.agent(runtime.conversation(), approver=approve_all)
    with pytest.raises(UnknownMode, match="use one of act, plan"):
        agent.set_mode("yolo")
