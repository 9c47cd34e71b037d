"""The chat draws before the agent loads: the runtime opens after the first screen, in
a thread, and what is typed meanwhile waits for the session and then runs in order."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

import pytest

from karyi.agent.frontend.startup import settings_for
from karyi.agent.runtime import Runtime
from karyi.cli.chat.app import ChatApp
from karyi.cli.chat.widgets import UserMessage
from tests.cli.chat.conftest import SIZE, screen_text, until
from tests.cli.chat.test_pilot import texts
from tests.support.fake_model_server import FakeModelServer


async def test_lines_typed_before_the_session_opens_wait_for_it(
    ws_root: Path, fake_llm: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("KARYI_BASE_URL", fake_llm.openai_url)
    fake_llm.script("First.", "Second.")
    args = argparse.Namespace(model="openai:gpt-4.1", dialect="native", profile=None)
    release, opened = threading.Event(), []

    def slow_open() -> Runtime:
        assert release.wait(30), "the test never let the runtime open"
        opened.append(Runtime.open(ws_root, settings_for(ws_root, args)))
        return opened[0]

    app = ChatApp(slow_open)
    try:
        async with app.run_test(size=SIZE) as pilot:
            assert "Message Karyi" in screen_text(app)  # drawn, with nothing loaded yet
            await pilot.press(*"one", "enter", *"two", "enter")
            assert app.live is None and app.early == ["one", "two"]
            assert "⏳ 1. one" in screen_text(app)
            release.set()
            await until(pilot, lambda: len(fake_llm.requests) == 2 and not app._driving, "ran")
            assert [str(m.render()) for m in texts(app, UserMessage)] == ["› one", "› two"]
    finally:
        release.set()
        for runtime in opened:
            runtime.close()
