"""Skills in a turn: offered by description only, loaded by the `skill` call, a user's
skill's `allowed-tools` honoured, a repository's not; a bad SKILL.md is a notice."""

from __future__ import annotations

import os
from pathlib import Path

from karyi.agent.events import EventStream, Notice
from karyi.agent.prompting.slash_commands import load_commands
from karyi.agent.review.approval import deny_all
from karyi.agent.runtime import Runtime
from karyi.llm.factory import create_provider
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply
from tests.support.skill_folders import write_skill


async def _no_wait(_seconds: float) -> None:
    return None


def _settings(fake_llm: FakeModelServer) -> Settings:
    # Commands ask (not run in the sandbox without asking), so a pre-approval shows.
    shell = {**Settings().values["shell"], "sandbox": {"autoApprove": False}}
    return Settings().with_values(
        model="openai:m",
        baseUrl=fake_llm.openai_url,
        dialect="toolsxml",
        profile="karyi",
        shell=shell,
    )


async def test_a_skill_is_offered_by_description_and_loaded_by_the_call(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    root = ws_root.resolve()
    write_skill(
        root / ".claude" / "skills",
        "release-notes",
        "write release notes from the git log",
        "SECRET-BODY: group changes by feature.\n",
        template_md="## Changes\n",
    )
    (root / ".agents" / "skills" / "broken").mkdir(parents=True)
    bad = root / ".agents" / "skills" / "broken" / "SKILL.md"
    bad.write_text("---\ndescription: : :\n---\n")
    runtime = Runtime.open(root, _settings(fake_llm))
    events = EventStream()
    seen: list[Notice] = []
    events.subscribe(lambda e: seen.append(e) if isinstance(e, Notice) else None)
    try:
        fake_llm.script(
            Reply(text="<tools><skill><name>release-notes</name></skill></tools>"),
            Reply(text="Done."),
        )
        provider = create_provider(runtime.settings, {}, sleep=_no_wait)
        agent = runtime.agent(
            runtime.conversation(), approver=deny_all, provider=provider, events=events
        )
        result = await agent.run("write the release notes")
        assert result.stop_reason == "end_turn"
        first, second = (r.body["messages"] for r in fake_llm.requests)
        system = first[0]["content"]
        assert "# Skills\n" in system
        assert "- release-notes: write release notes from the git log" in system
        assert "SECRET-BODY" not in system and "template.md" not in system
        told = second[-1]["content"]
        assert "SECRET-BODY: group changes by feature." in told and "- template.md" in told
        about = [n.message for n in seen if str(bad) in n.message]
        assert len(about) == 1 and about[0].startswith(f"{bad}: skipped: front matter is not YAML")
    finally:
        await runtime.aclose()


async def _run_command_after_skill(root: Path, fake_llm: FakeModelServer, skill: str) -> str:
    runtime = Runtime.open(root, _settings(fake_llm))
    try:
        fake_llm.script(
            Reply(text=f"<tools><skill><name>{skill}</name></skill></tools>"),
            Reply(text="<tools><command>touch ran-it</command></tools>"),
            Reply(text="Done."),
        )
        provider = create_provider(runtime.settings, {}, sleep=_no_wait)
        agent = runtime.agent(runtime.conversation(), approver=deny_all, provider=provider)
        await agent.run("go")
        return str(fake_llm.requests[-1].body["messages"][-1]["content"])
    finally:
        await runtime.aclose()


async def test_a_users_skill_pre_approves_its_allowed_tools(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    user = Path(os.environ["KARYI_CONFIG_DIR"]) / "skills"
    write_skill(user, "shell-work", "runs commands", extra="allowed-tools: Bash\n")
    told = await _run_command_after_skill(ws_root.resolve(), fake_llm, "shell-work")
    assert (ws_root / "ran-it").exists(), told  # the approver denies all: the skill cleared it


async def test_a_repositorys_skill_cannot_pre_approve(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    root = ws_root.resolve()
    write_skill(root / ".claude" / "skills", "sneaky", "runs", extra="allowed-tools: Bash\n")
    told = await _run_command_after_skill(root, fake_llm, "sneaky")
    assert not (root / "ran-it").exists() and "rejected" in told


def test_a_skill_is_a_slash_command_when_its_name_is_free(ws_root: Path) -> None:
    root = ws_root.resolve()
    write_skill(root / ".claude" / "skills", "release-notes", "write release notes")
    write_skill(root / ".claude" / "skills", "review", "a skill named like a command")
    (root / ".karyi" / "commands").mkdir(parents=True)
    (root / ".karyi" / "commands" / "review.md").write_text("Review $ARGUMENTS.\n")
    commands = load_commands(root)
    notes = commands["release-notes"]
    assert (notes.description, notes.scope) == ("write release notes", "skill (workspace)")
    assert notes.expand("for 2.1") == (
        "Use the skill release-notes for this: load it with the `skill` tool "
        "(name 'release-notes') first, then follow it.\n\nfor 2.1"
    )
    assert commands["review"].prompt == "Review $ARGUMENTS."  # the command file keeps its name
