"""Mentions beyond files: each becomes a block after the user's message."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from karyi.agent.prompting.mentions import Mention, find_mentions
from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.llm.factory import create_provider
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply
from tests.support.web_server import WebServer, serve


async def _no_wait(_seconds: float) -> None:
    return None


@pytest.fixture
def web() -> Iterator[WebServer]:
    yield from serve()


def test_mentions_are_found_once_each_and_mail_addresses_are_not() -> None:
    text = (
        "see @problems and @diff, @folder:src/. and @url:https://x.org/a, then @problems "
        "again; me@diff.org"
    )
    assert find_mentions(text) == [
        Mention("problems", "", "@problems"),
        Mention("diff", "", "@diff"),
        Mention("folder", "src/", "@folder:src/"),
        Mention("url", "https://x.org/a", "@url:https://x.org/a"),
    ]
    assert find_mentions("open @https://x.org/b.") == [
        Mention("url", "https://x.org/b", "@https://x.org/b")
    ]


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


async def test_every_mention_reaches_the_model(
    ws_root: Path, fake_llm: FakeModelServer, web: WebServer
) -> None:
    _git(ws_root, "init", "-q")
    _git(
        ws_root,
        "-c",
        "user.email=t@t",
        "-c",
        "user.name=t",
        "commit",
        "-qm",
        "first",
        "--allow-empty",
    )
    _git(ws_root, "add", "-A")
    _git(ws_root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "files")
    (ws_root / "src" / "main.py").write_text("print(greeting)\n")
    web.route("/page", "<html><title>Doc</title><body><p>The page text.</p></body></html>")
    settings = Settings().with_values(
        model="openai:m",
        baseUrl=fake_llm.openai_url,
        dialect="toolsxml",
        profile="karyi",
        web={**Settings().values["web"], "allowPrivate": True},
    )
    runtime = Runtime.open(ws_root, settings)
    try:
        fake_llm.script(
            Reply(text="<tools><command>echo hello from the terminal</command></tools>"),
            Reply(text="Ran."),
            Reply(text="Seen."),
        )
        provider = create_provider(settings, {}, sleep=_no_wait)
        agent = runtime.agent(runtime.conversation(), approver=approve_all, provider=provider)
        await agent.run("run it")
        message = f"look at @problems @terminal @diff @folder:src @url:{web.url}/page"
        assert (await agent.run(message)).stop_reason == "end_turn"
        sent = fake_llm.requests[2].body["messages"][-1]["content"]
        assert sent.startswith(message + '\n\n<mention name="@problems">\n')
        assert "- src/main.py:1:7: error: Undefined name `greeting` (Ruff F821)" in sent
        assert '<mention name="@terminal">\n$ echo hello from the terminal\n' in sent
        assert "hello from the terminal" in sent.split('<mention name="@terminal">')[1]
        assert "-print('hi')\n+print(greeting)" in sent
        assert '<mention name="@folder:src">\nFiles in src (1):\nsrc/main.py\n</mention>' in sent
        assert "The page text." in sent
    finally:
        await runtime.aclose()
