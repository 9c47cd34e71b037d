"""Auto memory (`memory.auto`): the agent adds notes with `remember`, redacted; the next
session loads them within `memory.maxChars`; off by default; `/memory` lists the files."""

from __future__ import annotations

import os
from pathlib import Path

from karyi.agent.prompting.memory_view import memory_files, memory_text
from karyi.agent.review.approval import deny_all
from karyi.agent.runtime import Runtime
from karyi.llm.factory import create_provider
from karyi.settings import Settings
from karyi.tools.builtin.memory import HEADING, auto_memory_path
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

SECRET = "tok-9f8e7d6c5b4a3921"


async def _no_wait(_seconds: float) -> None:
    return None


def _settings(fake_llm: FakeModelServer, **memory: object) -> Settings:
    return Settings().with_values(
        model="openai:m",
        baseUrl=fake_llm.openai_url,
        dialect="toolsxml",
        profile="karyi",
        memory={**Settings().values["memory"], **memory},
    )


async def _turn(root: Path, settings: Settings, text: str) -> None:
    runtime = Runtime.open(root, settings)
    runtime.vault.remember("DEPLOY_TOKEN", SECRET)
    try:
        provider = create_provider(settings, {}, sleep=_no_wait)
        agent = runtime.agent(runtime.conversation(), approver=deny_all, provider=provider)
        await agent.run(text)
    finally:
        await runtime.aclose()


async def test_notes_are_kept_redacted_and_loaded_by_the_next_session(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    root = ws_root.resolve()
    settings = _settings(fake_llm, auto=True)
    note = f"Deploy uses the token {SECRET}; run make db before tests"
    fake_llm.script(
        Reply(text=f"<tools><remember><note>{note}</note></remember></tools>"), Reply(text="Ok.")
    )
    await _turn(root, settings, "set things up")
    assert "### remember" in fake_llm.requests[0].body["messages"][0]["content"]
    told = str(fake_llm.requests[1].body["messages"][-1]["content"])
    assert "Noted: Deploy uses the token $KARYI{DEPLOY_TOKEN}; run make db" in told
    path = auto_memory_path(root)
    assert path.parent.parent.parent == Path(os.environ["KARYI_CONFIG_DIR"])
    assert path.read_text() == (
        f"{HEADING}\n- Deploy uses the token $KARYI{{DEPLOY_TOKEN}}; run make db before tests\n"
    )
    fake_llm.script(Reply(text="Hello."))
    await _turn(root, settings, "hello")
    system = fake_llm.requests[-1].body["messages"][0]["content"]
    assert f"## {path} (auto memory)" in system and "run make db before tests" in system
    assert SECRET not in system


async def test_off_by_default_no_tool_and_nothing_loaded(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    root = ws_root.resolve()
    path = auto_memory_path(root)
    path.parent.mkdir(parents=True)
    path.write_text("- an old note\n")
    fake_llm.script(Reply(text="Hi."))
    await _turn(root, _settings(fake_llm), "hi")
    system = fake_llm.requests[0].body["messages"][0]["content"]
    assert "an old note" not in system and "### remember" not in system


async def test_the_notes_are_cut_at_the_cap(ws_root: Path, fake_llm: FakeModelServer) -> None:
    root = ws_root.resolve()
    path = auto_memory_path(root)
    path.parent.mkdir(parents=True)
    path.write_text("".join(f"- note number {i}\n" for i in range(100)))
    fake_llm.script(Reply(text="Hi."))
    await _turn(root, _settings(fake_llm, auto=True, maxChars=200), "hi")
    system = fake_llm.requests[0].body["messages"][0]["content"]
    assert "- note number 0\n" in system and "note number 50" not in system
    assert f"[cut at memory.maxChars (200): keep your notes short, or tidy {path}]" in system


def test_memory_lists_every_file_and_shows_them(ws_root: Path) -> None:
    root = ws_root.resolve()
    (root / "KARYI.md").write_text(f"- the project uses {SECRET}\n")
    settings = Settings().with_values(memory={"auto": True, "maxChars": 100})
    files = memory_files([root], settings)
    conf = Path(os.environ["KARYI_CONFIG_DIR"])
    assert files == [
        {"path": str(conf / "KARYI.md"), "scope": "user", "exists": False},
        {"path": str(root / "KARYI.md"), "scope": "workspace", "exists": True},
        {"path": str(auto_memory_path(root)), "scope": "auto", "exists": False},
    ]
    text = memory_text(files, lambda t: t.replace(SECRET, "$KARYI{T}"))
    assert text == (
        f"## {conf / 'KARYI.md'} (user)\n(not written yet)\n\n"
        f"## {root / 'KARYI.md'} (workspace)\n- the project uses $KARYI{{T}}\n\n"
        f"## {auto_memory_path(root)} (auto)\n(not written yet)"
    )
