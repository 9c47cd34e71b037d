"""Custom slash commands: prompt files from the workspace and the user's config folder,
a description line, `$ARGUMENTS`, and the expansion every front end gets from the loop."""

from __future__ import annotations

from pathlib import Path

from karyi.agent.events import Event, TurnStarted
from karyi.agent.prompting.slash_commands import CustomCommand, expand_command, load_commands, parse
from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

REVIEW = "description: Review a file for bugs\nReview $ARGUMENTS for bugs; list each with its line."


def write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)


def test_the_description_comes_from_front_matter_a_line_or_the_first_line() -> None:
    front = parse("a", '---\ndescription: "Explain"\n---\nExplain $ARGUMENTS.\n', "user", "a.md")
    line = parse("b", REVIEW, "workspace", "b.md")
    plain = parse("c", "# Write a changelog entry\nFrom the staged diff.", "user", "c.md")
    assert (front.description, front.prompt) == ("Explain", "Explain $ARGUMENTS.")
    assert (line.description, line.prompt) == (
        "Review a file for bugs",
        "Review $ARGUMENTS for bugs; list each with its line.",
    )
    assert (plain.description, plain.prompt) == (
        "Write a changelog entry",
        "# Write a changelog entry\nFrom the staged diff.",
    )


def test_arguments_fill_the_placeholder_or_follow_the_prompt() -> None:
    review = parse("review", REVIEW, "workspace", "r.md")
    log = CustomCommand("log", "", "Write a changelog entry.", "user", "l.md")
    commands = {"review": review, "log": log}
    assert expand_command("/review src/main.py", commands) == (
        "Review src/main.py for bugs; list each with its line."
    )
    assert expand_command("/log for 1.2", commands) == "Write a changelog entry.\n\nfor 1.2"
    assert expand_command("/nope x", commands) == "/nope x"
    assert expand_command("review x", commands) == "review x"


def test_the_users_file_wins_and_karyis_names_are_kept(
    ws_root: Path, _isolated_config: Path
) -> None:
    write(ws_root / ".karyi" / "commands", "review", REVIEW)
    write(ws_root / ".karyi" / "commands", "deploy", "Deploy it.")
    write(ws_root / ".karyi" / "commands", "plan", "Not mine to take.")
    write(ws_root / ".karyi" / "commands", "bad name", "Skipped.")
    write(_isolated_config / "commands", "deploy", "description: Mine\nDeploy carefully.")
    found = load_commands(ws_root)
    assert sorted(found) == ["deploy", "review"]
    assert (found["deploy"].scope, found["deploy"].prompt) == ("user", "Deploy carefully.")
    assert found["review"].scope == "workspace"


async def test_a_custom_command_expands_with_its_arguments_in_a_turn(
    fake_llm: FakeModelServer, ws_root: Path
) -> None:
    write(ws_root / ".karyi" / "commands", "review", REVIEW)
    settings = Settings().with_values(model="openai:test-model", baseUrl=fake_llm.openai_url)
    runtime = Runtime.open(ws_root, settings)
    try:
        fake_llm.script(Reply(text="No bugs."))
        agent = runtime.agent(runtime.conversation(), approver=approve_all)
        seen: list[Event] = []
        agent.events.subscribe(seen.append)
        await agent.run("/review src/main.py")
        asked = fake_llm.requests[0].body["messages"][-1]["content"]
        assert asked == "Review src/main.py for bugs; list each with its line."
        started = next(e for e in seen if isinstance(e, TurnStarted))
        assert started.message == "/review src/main.py"
    finally:
        await runtime.aclose()


def test_the_editor_tasks_are_chat_commands_expanded_by_the_server() -> None:
    from karyi.agent.prompting.builtin_slash import expand
    from karyi.agent.prompting.tasks import TASKS

    prompts = {task.name: task.prompt for task in TASKS}
    assert expand("/explain") == prompts["explain"]
    assert expand("/tests use pytest fixtures") == f"{prompts['tests']}\n\nuse pytest fixtures"
    assert expand("/fix\nsee below") == f"{prompts['fix']}\n\nsee below"
    assert expand("please /explain") == "please /explain"
    assert expand("/explainer") == "/explainer"
