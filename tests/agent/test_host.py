"""AgentHost: loading sessions."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from karyi.agent.host import MAX_IDLE_SESSIONS, AgentHost
from karyi.agent.runtime import Runtime
from karyi.llm.base import ProviderError
from karyi.settings import Settings


def test_a_new_session_whose_model_cannot_be_made_leaves_no_session_behind(
    ws_root: Path,
) -> None:
    runtime = Runtime.open(ws_root, Settings())

    def unusable() -> None:
        raise ProviderError("config", "no API key for openai:gpt-4.1")

    host = AgentHost(runtime, provider_factory=unusable)  # type: ignore[arg-type]
    try:
        for _ in range(3):
            with pytest.raises(ProviderError):
                host.session(None)
        assert runtime.store.all() == []
        assert host.loaded() == []
    finally:
        runtime.close()


def test_opening_a_workspace_removes_leftovers_of_interrupted_writes(ws_root: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", ""])
    proc.wait()
    leftover = ws_root / f".app.py.{proc.pid}.x1y2z3_4.karyi-tmp"
    leftover.write_text("half a file")
    os.utime(leftover, (time.time() - 600, time.time() - 600))
    mine = ws_root / "keep.karyi-tmp"
    mine.write_text("the user's")
    runtime = Runtime.open(ws_root, Settings())
    assert runtime.sweeping is not None
    runtime.sweeping.join(30)
    assert not leftover.exists() and mine.exists()


async def test_sessions_held_in_memory_stay_bounded_over_many_turns(ws_root: Path) -> None:
    """What a long-running server keeps per session is bounded: idle sessions beyond
    MAX_IDLE_SESSIONS are unloaded (and load again from the store when used)."""
    script = ws_root / "script.json"
    script.write_text('{"replies": ["Done."]}')
    settings = Settings().with_values(model=f"script:{script}")
    runtime = Runtime.open(ws_root, settings)
    host = AgentHost(runtime)
    try:
        first = ""
        for n in range(MAX_IDLE_SESSIONS * 3):
            live, _ = await host.chat(None, f"turn {n}")
            first = first or live.id
            assert len(host.loaded()) <= MAX_IDLE_SESSIONS + 1
        assert first not in {live.id for live in host.loaded()}
        again, _ = await host.chat(first, "back to the first")  # loads it from the store
        assert again.id == first and len(again.conversation.messages) == 4
    finally:
        await host.close()


async def test_a_session_switches_its_model_for_the_next_turn_and_keeps_it(
    ws_root: Path,
) -> None:
    first = ws_root / "first.json"
    first.write_text('{"replies": ["from the first model"]}')
    second = ws_root / "second.json"
    second.write_text('{"replies": ["from the second model"]}')
    runtime = Runtime.open(ws_root, Settings().with_values(model=f"script:{first}"))
    host = AgentHost(runtime)
    try:
        live = host.session(None)
        with pytest.raises(ProviderError):
            host.choose(live.id, model="nosuch:model")
        assert host.choices(live.id) == {}  # nothing changed
        host.choose(live.id, model=f"script:{second}")
        _, result = await host.chat(live.id, "hello")
        assert result.final_answer == "from the second model"
    finally:
        await host.close()
    again = AgentHost(Runtime.open(ws_root, Settings().with_values(model=f"script:{first}")))
    try:  # a new host (a new process) loads the session with its own model
        assert again.choices(live.id) == {"model": f"script:{second}"}
        assert again.session(live.id).agent.provider.label.startswith("script:")
    finally:
        await again.close()
