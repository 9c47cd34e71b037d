"""The agent loop's own cost per tool round trip, with an instant in-process model.

Baseline (same run): the same tool called directly, N times. Loop: one turn of N
steps, each a model reply with one call of that tool (parsed, checked, executed,
rendered, recorded in SQLite, next request built). The difference per step is the
loop's overhead. Then: sustained tool calls per second with 20 calls per reply.
Targets (issue [agent]): median overhead < 5 ms, >= 200 calls/s.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from karyi.agent.events import Step
from karyi.agent.review.approval import approve_all
from karyi.agent.session.conversation import Conversation
from karyi.agent.session.store import SessionStore
from karyi.agent.turn.loop import Agent
from karyi.agent.turn.spec import AgentSpec, TurnServices
from karyi.llm.base import Finish, Provider, Request, StreamEvent, TextChunk
from karyi.protocol import get_dialect
from karyi.settings import Settings
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry, default_toolkit
from karyi.workspace.workspace import Workspace

STEPS = 200
CALLS_PER_REPLY = 20
SMOKE: dict[str, object] = {"STEPS": 5, "CALLS_PER_REPLY": 2}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""
READ = '<read><file src="README.md"/></read>'


class Instant(Provider):
    """Replies at once: `steps` replies of `calls` reads each, then a final answer."""

    label = "instant"

    def __init__(self, steps: int, calls: int) -> None:
        self.left = steps
        self.reply = "<tools>" + READ * calls + "</tools>"

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.left -= 1
        yield TextChunk(self.reply if self.left >= 0 else "Done.")
        yield Finish("stop")


async def run_turn(root: Path, steps: int, calls: int) -> list[float]:
    ctx = ToolContext(Workspace.open(root), Settings())
    store = SessionStore.for_workspace(root)
    spec = AgentSpec(
        "bench",
        get_dialect("toolsxml"),
        default_toolkit(builtin_registry(), "karyi"),
        max_steps=steps + 2,
    )
    agent = Agent(
        spec, Instant(steps, calls), ctx, Conversation.start(store), TurnServices(approve_all)
    )
    marks: list[float] = []
    agent.events.subscribe(
        lambda e: marks.append(time.perf_counter()) if isinstance(e, Step) else None
    )
    await agent.run("go")
    store.close()
    return [b - a for a, b in itertools.pairwise(marks)]


async def direct(root: Path, n: int) -> list[float]:
    ctx = ToolContext(Workspace.open(root), Settings())
    tool = builtin_registry().find("karyi.read")
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await tool.run({"files": [{"src": "README.md"}]}, ctx)
        times.append(time.perf_counter() - start)
    return times


def main(report: Callable[[str], None] = print) -> dict[str, float]:
    """Run the benchmark; returns the median overhead (ms) and calls per second."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "README.md").write_text("# Bench\n" * 20)
        base = statistics.median(asyncio.run(direct(root, STEPS)))
        steps = asyncio.run(run_turn(root, STEPS, 1))
        per_step = statistics.median(steps)
        start = time.perf_counter()
        asyncio.run(run_turn(root, 20, CALLS_PER_REPLY))
        rate = 20 * CALLS_PER_REPLY / (time.perf_counter() - start)
    overhead_ms = (per_step - base) * 1000
    report(f"direct tool call (median of {STEPS}):   {base * 1000:7.3f} ms")
    report(
        f"loop round trip, 1 call per reply:  {per_step * 1000:7.3f} ms (median of {len(steps)})"
    )
    report(f"loop overhead per round trip:       {overhead_ms:7.3f} ms   (target < 5 ms)")
    report(
        f"sustained: {rate:,.0f} tool calls/s, {CALLS_PER_REPLY} calls per reply (target >= 200/s)"
    )
    return {"overhead_ms": overhead_ms, "calls_per_second": rate}


if __name__ == "__main__":
    main()
