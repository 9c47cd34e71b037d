"""The terminal chat says which settings the organisation pins, when the session opens
(docs/security.md#managed-settings)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.cli.chat.conftest import Chat, screen_text, until


async def test_the_pinned_settings_are_shown_when_the_session_opens(chat: Chat) -> None:
    managed = Path(os.environ["KARYI_MANAGED_SETTINGS"])
    managed.write_text('{"maxSteps": 40}')
    async with chat() as (app, pilot):
        await until(pilot, lambda: "maxSteps = 40" in screen_text(app), "shown")
        assert "🔒 1 setting pinned by your organisation" in screen_text(app)


async def test_nothing_is_said_when_nothing_is_pinned(chat: Chat) -> None:
    async with chat() as (app, pilot):
        await pilot.pause()
        assert "pinned" not in screen_text(app)
