"""The collector's full passes are held while an answer streams and run when it is whole
(cli/chat/collector.py): one landing inside a frame took half of it."""

from __future__ import annotations

import gc

from karyi.agent.events import Text
from karyi.cli.chat.collector import HELD_THRESHOLD
from tests.cli.chat.conftest import Chat, until


async def test_full_collections_wait_while_an_answer_streams(chat: Chat) -> None:
    oldest = gc.get_threshold()[2]
    async with chat() as (app, pilot):
        await until(pilot, lambda: app.live is not None, "the session open")
        app.feed(Text("Streaming "))
        assert gc.get_threshold()[2] == HELD_THRESHOLD
        app.feed(Text("still."))
        assert gc.get_threshold()[2] == HELD_THRESHOLD
        collections = gc.get_stats()[2]["collections"]
        app.feed.end_prose()
        assert gc.get_threshold()[2] == oldest
        assert gc.get_stats()[2]["collections"] == collections + 1, "the held pass ran"


async def test_quitting_while_the_history_is_read_waits_for_the_read(chat: Chat) -> None:
    """The stored turns are read in a thread as the session opens; quitting at once
    closed the store under that read (a segmentation fault in sqlite3). Now closing
    waits for it: the chat ends cleanly however early it is quit."""
    for _ in range(5):
        async with chat() as (app, _pilot):
            app.exit(0)
        assert app.return_code == 0
