"""Project rules: which files apply, in which order, and that they reach the model."""

from __future__ import annotations

import os
from pathlib import Path

from karyi.agent.prompting.rules import rule_files, rules_text
from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.llm.factory import create_provider
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def _no_wait(_seconds: float) -> None:
    return None


def _project(root: Path, conf: Path) -> None:
    (root / "AGENTS.md").write_text("Root rule: run pytest.\n")
    (root / "src" / "AGENTS.md").write_text("Src rule: no prints.\n")
    (root / "docs" / "deep").mkdir(parents=True)
    (root / "docs" / "AGENTS.md").write_text("Docs rule.\n")
    (root / ".karyi" / "rules").mkdir(parents=True)
    (root / ".karyi" / "rules" / "b.md").write_text("Rule b.\n")
    (root / ".karyi" / "rules" / "a.md").write_text("Rule a.\n")
    (root / "KARYI.md").write_text("- a saved fact\n")
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "AGENTS.md").write_text("User rule: be brief.\n")


def test_rule_files_in_precedence_order(ws_root: Path) -> None:
    root = ws_root.resolve()
    conf = Path(os.environ["KARYI_CONFIG_DIR"])
    _project(root, conf)
    touched = [root / "src" / "main.py", root / "docs" / "deep" / "x.md", root / "README.md"]
    found = [(r.path, r.scope) for r in rule_files([root], touched)]
    assert found == [
        (conf / "AGENTS.md", "user"),
        (root / "AGENTS.md", "project"),
        (root / ".karyi" / "rules" / "a.md", "project"),
        (root / ".karyi" / "rules" / "b.md", "project"),
        (root / "KARYI.md", "memory"),
        (root / "docs" / "AGENTS.md", "folder"),
        (root / "src" / "AGENTS.md", "folder"),
    ]


def test_a_changed_rule_file_is_read_again(ws_root: Path) -> None:
    root = ws_root.resolve()
    (root / "AGENTS.md").write_text("first\n")
    assert "first" in rules_text(rule_files([root]))
    (root / "AGENTS.md").write_text("second, longer\n")
    assert "second, longer" in rules_text(rule_files([root]))
    (root / "AGENTS.md").unlink()
    assert rules_text(rule_files([root])) == ""


async def test_nested_rules_reach_the_model_once_the_agent_works_there(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    root = ws_root.resolve()
    _project(root, Path(os.environ["KARYI_CONFIG_DIR"]))
    settings = Settings().with_values(
        model="openai:m", baseUrl=fake_llm.openai_url, dialect="toolsxml", profile="karyi"
    )
    runtime = Runtime.open(root, settings)
    try:
        fake_llm.script(
            Reply(text='<tools><read><file src="src/main.py"/></read></tools>'), Reply(text="Done.")
        )
        provider = create_provider(settings, {}, sleep=_no_wait)
        agent = runtime.agent(runtime.conversation(), approver=approve_all, provider=provider)
        result = await agent.run("look at main")
        assert result.stop_reason == "end_turn"
        first, second = (r.body["messages"][0]["content"] for r in fake_llm.requests)
        for system in (first, second):
            assert f"## {root / 'AGENTS.md'} (project)\nRoot rule: run pytest." in system
            assert "User rule: be brief." in system and "- a saved fact" in system
            assert system.index("User rule") < system.index("Root rule") < system.index("Rule a.")
        assert "Src rule" not in first
        assert f"## {root / 'src' / 'AGENTS.md'} (folder)\nSrc rule: no prints." in second
        assert "Docs rule" not in second
        assert [r.path for r in runtime.rules(agent.conversation.id)][-1] == root / "src/AGENTS.md"
    finally:
        await runtime.aclose()


async def test_a_secret_value_in_a_rule_file_never_reaches_the_model(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    secret = "tok-3f9a1c77e2b84d1e"
    (ws_root / "AGENTS.md").write_text(f"Deploy with {secret}.\n")
    settings = Settings().with_values(model="openai:m", baseUrl=fake_llm.openai_url)
    runtime = Runtime.open(ws_root, settings)
    runtime.vault.remember("DEPLOY_TOKEN", secret)
    try:
        fake_llm.script(Reply(text="Ok."))
        provider = create_provider(settings, {}, sleep=_no_wait)
        agent = runtime.agent(runtime.conversation(), approver=approve_all, provider=provider)
        await agent.run("deploy")
        system = fake_llm.requests[0].body["messages"][0]["content"]
        assert "Deploy with" in system and secret not in system
    finally:
        await runtime.aclose()
