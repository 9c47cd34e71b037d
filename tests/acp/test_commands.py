"""Karyi's tasks as slash commands: listed after session/new, expanded in a prompt."""

from __future__ import annotations

from tests.acp.conftest import Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_slash_commands_are_listed_and_expanded(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="It loops."))
    agent = await karyi_acp()
    sid = await agent.new_session()
    (listed,) = await agent.client.wait_for(lambda: agent.client.of("available_commands_update"))
    assert [c.name for c in listed.available_commands] == [
        "explain",
        "tests",
        "act",
        "plan",
        "memory",
    ]
    await agent.say(sid, "/explain the main loop")
    asked = fake_llm.requests[0].body["messages"][-1]["content"]
    assert asked.startswith("Explain what the selected code does")
    assert "the main loop" in asked


async def test_custom_commands_are_listed_and_expanded(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="No bugs."))
    agent = await karyi_acp()
    commands = agent.root / ".karyi" / "commands"
    commands.mkdir(parents=True)
    (commands / "review").with_suffix(".md").write_text(
        "description: Review a file for bugs\nReview $ARGUMENTS for bugs."
    )
    sid = await agent.new_session()
    (listed,) = await agent.client.wait_for(lambda: agent.client.of("available_commands_update"))
    review = listed.available_commands[-1]
    assert (review.name, review.description) == ("review", "Review a file for bugs")
    await agent.say(sid, "/review src/main.py")
    assert fake_llm.requests[0].body["messages"][-1]["content"] == "Review src/main.py for bugs."


async def test_memory_is_answered_without_the_model(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    agent = await karyi_acp()
    (agent.root / "KARYI.md").write_text("- tests run with make test\n")
    sid = await agent.new_session()
    answer = await agent.say(sid, "/memory")
    assert answer.stop_reason == "end_turn"
    shown = agent.client.message_text()
    assert f"## {agent.root / 'KARYI.md'} (workspace)\n- tests run with make test" in shown
    assert "(user)\n(not written yet)" in shown
    assert fake_llm.requests == []
