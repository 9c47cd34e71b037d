"""A turn's followers: each keeps its own place, and a cancelled one harms no other."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from karyi.agent.events import Notice
from karyi.gateway.turns import Shown, Turn


def running_turn() -> Turn:
    live: Any = SimpleNamespace(id="store-1", pending={})
    return Turn("s1", live)


async def take(turn: Turn, count: int, after: int | None = None) -> list[int]:
    ids: list[int] = []
    async for step in turn.follow(after):
        assert isinstance(step, Shown)
        ids.append(step.id)
        if len(ids) == count:
            break
    return ids


async def test_a_reconnected_follower_is_not_starved_by_a_stale_one() -> None:
    turn = running_turn()
    for n in range(3):
        turn.on_event(Notice("n", str(n)))
    stale = asyncio.ensure_future(take(turn, 10))  # a dropped connection, still alive
    await asyncio.sleep(0)  # one scheduling round: it takes what there is, then waits
    assert turn.shown == 3
    fresh = asyncio.ensure_future(take(turn, 3, after=1))  # Last-Event-ID: 1
    turn.on_event(Notice("n", "3"))
    assert await asyncio.wait_for(fresh, 10) == [2, 3, 4]
    assert not stale.done()  # it took event 4 as well: each follower has its own place
    stale.cancel()


async def test_a_cancelled_follower_does_not_cancel_the_others_wait() -> None:
    turn = running_turn()
    first = asyncio.ensure_future(take(turn, 1))
    second = asyncio.ensure_future(take(turn, 1))
    await asyncio.sleep(0)  # both wait on the turn's signal
    first.cancel()
    await asyncio.sleep(0)
    turn.on_event(Notice("n", "after the disconnect"))
    assert await asyncio.wait_for(second, 10) == [1]
