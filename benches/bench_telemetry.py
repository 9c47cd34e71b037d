"""A turn with OpenTelemetry on, against the same turn with it off, in the same run.

The turn: `STEPS` model replies of one `read` call each, from an instant in-process
model (so what is measured is the agent's own work, where telemetry's cost would show).
On: the turn's events recorded (agent/telemetry/recorder.py), made into spans, metrics
and logs on the telemetry thread once the turn ends, and exported over OTLP/HTTP to a
local receiver (tests/support/otlp_receiver.py) from the SDK's batching threads. The
timed part is `agent.run`, what the user waits for. What telemetry does after the turn
(the replay into spans on the telemetry thread, the SDK's export) is waited for outside
the timing and reported on its own line, so that it never lands inside a later turn,
on or off (with an instant model that would be noise of the same size as what is
measured; with a real one the turn waits on the network meanwhile). Both are warmed
up; then `ROUNDS` rounds of one off and one on turn, the order alternating; the figure
is the median of the rounds' on/off ratios. Target (docs/telemetry.md): on <= 1.05x.
"""

from __future__ import annotations

import asyncio
import gc
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
ROUNDS = 21
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


async def one_turn(
    root: Path, exporting: Exporting | None, after: list[float]
) -> tuple[float, float]:
    """One turn's wall-clock time and its thread's CPU time (`agent.run`); with
    `exporting`, the time of what telemetry does after it (replay, spans, export) goes to
    `after`, waited for outside the timing."""
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
    gc.collect()  # no collection of an earlier turn's garbage inside this one
    start, cpu = time.perf_counter(), time.thread_time()
    await agent.run("go")
    took = (time.perf_counter() - start, time.thread_time() - cpu)
    store.close()
    if exporting is not None:  # all of it done and exported before the next turn
        start = time.perf_counter()
        exporting.flush()
        after.append(time.perf_counter() - start)
    return took


def main(report: Callable[[str], None] = print) -> dict[str, float]:
    """Run the benchmark; returns the medians (s) and the median of the rounds' ratios."""
    receiver = serve()
    url, received = next(receiver)
    exporting = Exporting(url, None)
    off: list[tuple[float, float]] = []
    on: list[tuple[float, float]] = []
    after: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "README.md").write_text("# Bench\n" * 20)
        for warm in (None, exporting):  # imports, first SQLite pages, the SDK's first spans
            asyncio.run(one_turn(root, warm, []))
        for n in range(ROUNDS):  # off first in even rounds, on first in odd ones
            for x in (None, exporting) if n % 2 == 0 else (exporting, None):
                (off if x is None else on).append(asyncio.run(one_turn(root, x, after)))
    spans = len(received.spans())
    exporting.shutdown()
    receiver.close()
    wall, cpu = (
        statistics.median(a[i] / b[i] for a, b in zip(on, off, strict=True)) for i in (0, 1)
    )
    med = {k: statistics.median(t[0] for t in v) * 1000 for k, v in (("off", off), ("on", on))}
    report(f"turn of {STEPS} steps, telemetry off: {med['off']:8.1f} ms (median of {ROUNDS})")
    report(f"turn of {STEPS} steps, telemetry on:  {med['on']:8.1f} ms ({spans} spans received)")
    report(f"after the turn, off its path: {statistics.median(after) * 1000:.1f} ms per turn")
    report(f"on / off, the turn's thread's CPU time: {cpu:.3f}x   (target <= {LIMIT}x)")
    report(f"on / off, wall clock: {wall:.3f}x   (medians of {ROUNDS} paired rounds)")
    if cpu > LIMIT:
        raise SystemExit(f"telemetry costs {cpu:.3f}x a turn's CPU time (limit {LIMIT}x)")
    return {"off_s": med["off"] / 1000, "on_s": med["on"] / 1000, "ratio": cpu, "wall": wall}


if __name__ == "__main__":
    main()
