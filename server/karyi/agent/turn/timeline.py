"""An agent's session read back, rewound and forked: what every front end calls.

The transcript is read with the agent's own dialect and tools; a rewind is refused while
a turn runs (cancel it first); git and the store are worked off the event loop. See
docs/sessions.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

from karyi.agent.session.rewind import HistoryError, RewindPlan, RewindWhat, Rewound, plan_rewind
from karyi.agent.session.rewind import rewind as rewind_session
from karyi.agent.session.transcript import Transcript
from karyi.agent.session.transcript_build import Describe, load_transcript
from karyi.agent.turn.loop import Agent


def transcript_of(agent: Agent) -> Transcript:
    """The agent's session as the user saw it (an unsaved session: no turns)."""
    conv = agent.conversation
    if conv.store is None:
        return Transcript(conv.id, conv.title, agent.spec.dialect.name)
    return load_transcript(conv.store, conv.id, agent.spec.reparser(), _describer(agent))


def _describer(agent: Agent) -> Describe:
    """Each call's one line from the agent's own tools (its name for a tool it lacks)."""
    toolkit = agent.spec.toolkit

    def describe(name: str, params: dict[str, Any]) -> str:
        tool = toolkit.get(name)
        return tool.describe(params) if tool is not None else name

    return describe


async def rewind_plan(agent: Agent, turn_id: str) -> RewindPlan:
    """What rewinding the agent's session to `turn_id` would do."""
    conv = agent.conversation
    if conv.store is None:
        raise HistoryError("this session is not saved: there is nothing to rewind to")
    transcript = await asyncio.to_thread(transcript_of, agent)
    return await asyncio.to_thread(plan_rewind, transcript, conv.store, agent.checkpoints, turn_id)


async def rewind_agent(
    agent: Agent, turn_id: str, what: RewindWhat, overwrite: Collection[str] = ()
) -> Rewound:
    """Rewind the agent's session to `turn_id` (refused while a turn runs)."""
    if agent.busy:
        raise HistoryError("a turn is running in this session: cancel it before rewinding")
    plan = await rewind_plan(agent, turn_id)
    return await asyncio.to_thread(
        rewind_session, agent.conversation, agent.checkpoints, plan, what, overwrite
    )


async def fork_at(agent: Agent, turn_id: str | None = None) -> str:
    """A new stored session with the agent's turns up to and including `turn_id` (None:
    every turn); its id. Turns rewound out of the conversation are not taken."""
    conv = agent.conversation
    if conv.store is None:
        raise HistoryError("this session is not saved: there is nothing to fork")
    store = conv.store
    turns = [
        t.id for t in (await asyncio.to_thread(transcript_of, agent)).turns if t.status != "rewound"
    ]
    if turn_id is not None:
        if turn_id not in turns:
            known = ", ".join(turns[-5:]) or "none"
            raise HistoryError(f"no turn {turn_id!r} to fork at in this session (latest: {known})")
        turns = turns[: turns.index(turn_id) + 1]
    return await asyncio.to_thread(store.fork, conv.id, turns)
