"""Karyi's tasks as slash commands: listed after session/new, expanded in a prompt."""

from __future__ import annotations

from tests.acp.conftest import Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply
from tests.support.review_model import Reviewers, calls, finding, project_with_change


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
        "review",
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


async def test_review_lists_the_findings(karyi_acp: Start, fake_llm: FakeModelServer) -> None:
    agent = await karyi_acp()
    project_with_change(agent.root)
    Reviewers(
        fake_llm,
        {
            "correctness": [
                calls(finding("src/calc.py", 7, "error", "Division by zero", suggestion="x")),
                "Done.",
            ]
        },
    )
    sid = await agent.new_session()
    answer = await agent.say(sid, "/review")
    assert answer.stop_reason == "end_turn"
    text = agent.client.message_text()
    assert text.startswith("Reviewing the uncommitted changes (1 file(s))…\n\n")
    assert "**1 finding(s)** (1 error, 0 warning, 0 info) · 0 dropped off the change" in text
    assert "- **error** `src/calc.py:7` Division by zero (correctness)\n  Because." in text
    assert "  Suggestion:\n  ```\nx\n  ```" in text
    assert len(fake_llm.requests) == 4  # three reviewers, one of them twice
    await agent.say(sid, "/review --commit nope")
    assert "--commit: no commit named 'nope'" in agent.client.message_text()
