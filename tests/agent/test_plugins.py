"""A plugin in Claude Code's layout, installed unchanged, works in a real turn: its
command is a slash command, its skill a skill, its MCP server's tools are called, its
hook blocks a write; its agent is a subagent."""

from __future__ import annotations

import shutil
from pathlib import Path

from karyi.agent.frontend.plugins import add_plugin
from karyi.agent.prompting.slash_commands import load_commands
from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.agent.subagent_defs import definitions
from karyi.llm.factory import create_provider
from karyi.settings import load_settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.plugin_folders import git_repo, write_plugin
from tests.support.replies import Reply


async def _no_wait(_seconds: float) -> None:
    return None


def test_its_commands_are_slash_commands_by_both_names(tmp_path: Path, ws_root: Path) -> None:
    add_plugin(str(write_plugin(tmp_path / "src")), "user", ws_root)
    commands = load_commands(ws_root)
    assert commands["demo:greet"].expand("Marie") == "Say bonjour to Marie, in French."
    assert commands["greet"].description == "Greet someone in French"
    (ws_root / ".karyi" / "commands").mkdir(parents=True)
    (ws_root / ".karyi" / "commands" / "greet.md").write_text("My own greeting.\n")
    commands = load_commands(ws_root)
    assert commands["greet"].prompt == "My own greeting."  # the short name is taken
    assert "demo:greet" in commands


def test_its_agent_is_a_subagent(tmp_path: Path, ws_root: Path) -> None:
    add_plugin(str(write_plugin(tmp_path / "src")), "user", ws_root)
    agent = definitions(load_settings(ws_root))["demo:checker"]
    assert (agent.description, agent.instructions) == (
        "checks spelling in files",
        "You check spelling.",
    )
    assert agent.tools == ("karyi.read", "vecli.read_many_files", "vecli.grep")


async def test_command_skill_mcp_server_and_hook_work_in_a_turn(
    tmp_path: Path, ws_root: Path, fake_llm: FakeModelServer
) -> None:
    root = ws_root.resolve()
    url = git_repo(write_plugin(tmp_path / "src"), tmp_path / "demo.git")
    add_plugin(url, "user", root)
    settings = load_settings(root).with_values(
        model="openai:m", baseUrl=fake_llm.openai_url, dialect="toolsxml", profile="karyi"
    )
    assert settings.warnings == ()
    runtime = Runtime.open(root, settings)
    try:
        fake_llm.script(
            Reply(
                text="<tools><skill><name>french</name></skill>"
                "<demo_tools__echo><text>salut</text></demo_tools__echo></tools>"
            ),
            Reply(
                text='<tools><edit><file src="new.md"><find></find><replace>x</replace>'
                "</file></edit></tools>"
            ),
            Reply(text="Fini."),
        )
        provider = create_provider(settings, {}, sleep=_no_wait)
        agent = runtime.agent(runtime.conversation(), approver=approve_all, provider=provider)
        result = await agent.run("/demo:greet Marie")
        assert result.final_answer == "Fini."
        first, second, third = (r.body["messages"] for r in fake_llm.requests)
        assert "Say bonjour to Marie, in French." in str(first[-1]["content"])
        assert "- french: write replies in French" in first[0]["content"]
        assert "demo_tools__echo" in first[0]["content"]
        results = str(second[-1]["content"])
        assert "Always answer in French." in results and "salut" in results
        blocked = str(third[-1]["content"])
        assert "blocked by a beforeTool hook: demo guard: no writing here" in blocked
        assert not (root / "new.md").exists()
    finally:
        await runtime.aclose()


PUBLIC = Path(__file__).with_name("data") / "plugins" / "commit-commands"


async def test_a_public_plugin_installs_unchanged_and_its_command_runs(
    tmp_path: Path, ws_root: Path, fake_llm: FakeModelServer
) -> None:
    root = ws_root.resolve()
    source = tmp_path / "commit-commands"
    shutil.copytree(PUBLIC, source)
    add_plugin(git_repo(source, tmp_path / "commit-commands.git"), "user", root)
    commands = load_commands(root)
    assert {"commit", "commit-push-pr", "clean_gone"} <= set(commands)
    assert commands["commit-commands:commit"].description == "Create a git commit"
    settings = load_settings(root).with_values(model="openai:m", baseUrl=fake_llm.openai_url)
    runtime = Runtime.open(root, settings)
    try:
        fake_llm.script(Reply(text="Committed."))
        provider = create_provider(settings, {}, sleep=_no_wait)
        agent = runtime.agent(runtime.conversation(), approver=approve_all, provider=provider)
        await agent.run("/commit")
        sent = str(fake_llm.requests[0].body["messages"][-1]["content"])
        assert "create a single git commit" in sent and "## Context" in sent
    finally:
        await runtime.aclose()


def test_a_plugin_reads_only_its_own_folder(tmp_path: Path, ws_root: Path) -> None:
    source = write_plugin(tmp_path / "src", "leaky", commands="../../outside")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("private notes\n")
    shutil.rmtree(source / "commands")
    (source / "commands").symlink_to(outside)
    add_plugin(str(source), "user", ws_root)
    assert not [c for c in load_commands(ws_root).values() if "private" in c.prompt]
