"""The chat in-process under Textual's pilot, over a real runtime and the fake model
server: keys in, widgets and files out."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot

from karyi.agent.frontend.startup import settings_for
from karyi.agent.runtime import Runtime
from karyi.cli.chat.app import ChatApp
from tests.support.fake_model_server import FakeModelServer

SIZE = (100, 40)

Chat = Callable[..., "AsyncIterator[tuple[ChatApp, Pilot[int]]]"]


@pytest.fixture
def chat(
    ws_root: Path, fake_llm: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., object]:
    """`async with chat() as (app, pilot)`: the chat on `ws_root` against `fake_llm`, its
    session opened (`session=ID`: a stored one)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("KARYI_BASE_URL", fake_llm.openai_url)
    args = argparse.Namespace(model="openai:gpt-4.1", dialect="native", profile=None)

    @asynccontextmanager
    async def open_chat(session: str | None = None) -> AsyncIterator[tuple[ChatApp, Pilot[int]]]:
        runtime = Runtime.open(ws_root, settings_for(ws_root, args))
        app = ChatApp(runtime, session)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: app.live is not None, "the session opened")
                yield app, pilot
        finally:
            runtime.close()

    return open_chat


async def until(pilot: Pilot[int], found: Callable[[], object], what: str) -> None:
    """Let the app run until `found()` holds (AssertionError naming `what` if it never
    does): no fixed sleeps, the pilot's own pause between looks."""
    for _ in range(2000):
        if found():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never happened: {what}")


def screen_text(app: ChatApp) -> str:
    """Everything the screen shows, as plain text (the SVG export's text layer)."""
    import re
    from html import unescape

    svg = app.export_screenshot()
    return unescape("".join(re.findall(r">([^<>]*)</text>", svg))).replace("\xa0", " ")
