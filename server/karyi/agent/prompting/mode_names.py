"""The session modes as every front end lists them: `act` and `plan`, with their names
and descriptions. Kept apart from `modes.py` (what a mode does to a turn, which needs the
tools) so a front end can answer with them before the agent stack is loaded
(docs/acp.md#start-up)."""

from __future__ import annotations

from dataclasses import dataclass

PLAN = "plan"
ACT = "act"


@dataclass(frozen=True)
class Mode:
    """A session mode as every front end lists it."""

    id: str
    name: str
    description: str


MODES = (
    Mode(ACT, "Act", "Karyi reads, edits and runs commands, asking before anything risky"),
    Mode(PLAN, "Plan", "Karyi only reads and searches, then answers with a plan; nothing changes"),
)
MODE_IDS = tuple(m.id for m in MODES)
