"""A turn with OpenTelemetry on, against the same turn with it off, in the same run.

The turn: `STEPS` model replies of one `read` call each, from an instant in-process
model (so what is measured is the agent's own work, where telemetry's cost would show).
On: the turn's events recorded (agent/telemetry/recorder.py), made into spans, metrics
and logs on the telemetry thread once the turn ends, and exported over OTLP/HTTP to a
local receiver (tests/support/otlp_receiver.py) from the SDK's batching threads. The
timed part is `agent.run`, what the user waits for; the recording left after it is
waited for outside the timing (`settle`), so that it never overlaps the next turn,
whether that one is on or off. Off and on alternate, `ROUNDS` each; medians compared.
Target (docs/telemetry.md): on <= 1.05x off.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from karyi.agent.review.approval import approve_all
from karyi.agent.session.conversation import Conversation
from karyi.agent.session.store import SessionStore
from karyi.agent.telemetry.recorder import TurnRecorder
from karyi.agent.telemetry.setup import Exporting
from karyi.agent.turn.loop import Agent
from karyi.agent.turn.spec import AgentSpec, TurnServices
from karyi.llm.base import Finish, Provider, Request, StreamEvent, TextChunk, Usage
from karyi.protocol import get_dialect
from karyi.settings import Settings
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry, default_toolkit
from karyi.workspace.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.otlp_receiver import serve

STEPS = 100
ROUNDS = 7
LIMIT = 1.05
SMOKE: dict[str, object] = {"STEPS": 3, "ROUNDS": 1, "LIMIT": 1e9}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`); no limit there."""


class Instant(Provider):
    """Replies at once: `steps` replies of one read each, then a final answer."""

    label = "instant"

    def __init__(self, steps: int) -> None:
        self.left = steps

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.left -= 1
        yield TextChunk(
            '<tools><read><file src="README.md"/></read></tools>' if self.left >= 0 else "Done."
        )
        yield Usage(input_tokens=1000, output_tokens=50)
        yield Finish("stop")


async def one_turn(root: Path, exporting: Exporting | None) -> float:
    ctx = ToolContext(Workspace.open(root), Settings())
    store = SessionStore.for_workspace(root)
    spec = AgentSpec(
        "bench",
        get_dialect("toolsxml"),
        default_toolkit(builtin_registry(), "karyi"),
        max_steps=STEPS + 2,
    )
    conv = Conversation.start(store)
    agent = Agent(spec, Instant(STEPS), ctx, conv, TurnServices(approve_all))
    if exporting is not None:
        agent.events.subscribe(TurnRecorder(exporting, conv.id))
    start = time.perf_counter()
    await agent.run("go")
    took = time.perf_counter() - start
    store.close()
    if exporting is not None:
        exporting.settle()  # its spans made before the next turn, so none overlaps another
    return took


def main(report: Callable[[str], None] = print) -> dict[str, float]:
    """Run the benchmark; returns the medians (s) and their ratio."""
    receiver = serve()
    url, received = next(receiver)
    exporting = Exporting(url, None)
    off: list[float] = []
    on: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "README.md").write_text("# Bench\n" * 20)
        asyncio.run(one_turn(root, None))  # warm up: imports, first SQLite pages
        for _ in range(ROUNDS):
            off.append(asyncio.run(one_turn(root, None)))
            on.append(asyncio.run(one_turn(root, exporting)))
    exporting.flush()
    spans = len(received.spans())
    exporting.shutdown()
    receiver.close()
    ratio = statistics.median(on) / statistics.median(off)
    med_off, med_on = statistics.median(off) * 1000, statistics.median(on) * 1000
    report(f"turn of {STEPS} steps, telemetry off: {med_off:8.1f} ms (median of {ROUNDS})")
    report(f"turn of {STEPS} steps, telemetry on:  {med_on:8.1f} ms ({spans} spans received)")
    report(f"on / off: {ratio:.3f}x   (target <= {LIMIT}x)")
    if ratio > LIMIT:
        raise SystemExit(f"telemetry costs {ratio:.3f}x a turn (limit {LIMIT}x)")
    return {"off_s": statistics.median(off), "on_s": statistics.median(on), "ratio": ratio}


if __name__ == "__main__":
    main()
