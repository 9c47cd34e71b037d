"""A session's agent events as OpenTelemetry spans, metrics and logs.

One `TurnRecorder` listens to one agent's event stream (events.py; the stream redacts
secrets before any listener sees them). During a turn it only keeps the events it
records and their times (a list append: what a turn pays, benches/bench_telemetry.py);
when the turn ends it hands them to the telemetry thread (setup.py), where `Replay`
makes them spans (spans.py: the turn, its model requests, their tool calls, subagents'
turns under the calls that ran them), metrics and logs. Attributes carry durations,
decisions, tokens and cost, never text: prompts, parameters and commands only with
`telemetry.logPrompts`. See docs/telemetry.md.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from typing import Any

from karyi.agent import events as ev
from karyi.agent.telemetry.setup import Exporting
from karyi.agent.telemetry.spans import HANDLERS, Pending, Trace, build

RECORDED = frozenset(HANDLERS)
"""The kinds of events a recorder keeps."""


class TurnRecorder:
    """Listener of one agent's events (see the module docstring): on the turn's path it
    only keeps the events it records, with their times."""

    def __init__(self, exporting: Exporting, session_id: str) -> None:
        self.x = exporting
        self.session_id = session_id
        self.kept: list[tuple[ev.Event, int]] = []
        self.replay = Replay(exporting)

    def __call__(self, event: ev.Event) -> None:
        """Keep `event` if it is recorded; at the end of a turn hand what was kept over."""
        kind = event.kind
        if kind in RECORDED:
            self.kept.append((event, time.time_ns()))
            if kind == "turnFinished":
                kept, self.kept = self.kept, []
                self.x.later(lambda: self.replay.run(kept))


class Replay:
    """A recorder's events replayed, on the telemetry thread only: the spans, counts,
    numbers and logs of a turn, handed to the SDK when the session's turn ends."""

    def __init__(self, exporting: Exporting) -> None:
        self.x = exporting
        self.now = 0
        self.recorded: list[Pending] = []
        self.logs: list[tuple[str, str, dict[str, Any], int]] = []
        self.numbers: list[tuple[str, float, dict[str, Any]]] = []
        self.counts: Counter[tuple[str, str, str]] = Counter()
        self.costs: defaultdict[str, float] = defaultdict(float)
        self.top = Trace(self, None)

    def run(self, kept: list[tuple[ev.Event, int]]) -> None:
        """Replay events kept during a turn."""
        for event, at in kept:
            self.now = at
            self.top(event)

    def child(self, name: str, parent: Pending | None, attrs: dict[str, Any]) -> Pending:
        """A new span, recorded (made real after the turn)."""
        span = Pending(name, parent, attrs, self.now)
        self.recorded.append(span)
        return span

    def log(self, name: str, body: str, attrs: dict[str, Any]) -> None:
        """A log record, kept until the turn is handed over."""
        self.logs.append((name, body, attrs, self.now))

    def turn_started(self, e: ev.TurnStarted) -> None:
        """The session's turn began: the turn and session counters, its log."""
        self.numbers.append(("turns", 1, {}))
        if e.session_id not in self.x.sessions_seen:
            self.x.sessions_seen.add(e.session_id)
            self.numbers.append(("sessions", 1, {}))
        self.log("karyi.turn.started", "turn started", {"karyi.turn.id": e.turn_id})

    def turn_finished(self, e: ev.TurnFinished, seconds: float) -> None:
        """The session's turn ended: its duration and its log."""
        self.numbers.append(("turn_duration", seconds, {"karyi.stop_reason": e.stop_reason}))
        self.log(
            "karyi.turn.finished",
            "turn finished",
            {
                "karyi.turn.id": e.turn_id,
                "karyi.turn.stop_reason": e.stop_reason,
                "karyi.turn.steps": e.steps,
                "karyi.turn.seconds": round(seconds, 3),
            },
        )

    def hand_over(self) -> None:
        """The session's turn ended: what it recorded to the SDK, as spans, metrics and
        logs (whose batch processors export them from their own threads)."""
        if not (self.recorded or self.numbers):
            return
        build(self.x.tracer, self.recorded)
        _add_metrics(self.x, dict(self.counts), self.costs, self.numbers)
        for name, body, attrs, at in self.logs:
            self.x.log(name, body, attrs, at)
        self.recorded, self.logs, self.numbers = [], [], []
        self.counts.clear()
        self.costs = defaultdict(float)


def _add_metrics(
    x: Exporting,
    counts: dict[tuple[str, str, str], int],
    costs: dict[str, float],
    numbers: list[tuple[str, float, dict[str, Any]]],
) -> None:
    """A turn's counts into the metrics (docs/telemetry.md#metrics)."""
    m = x.instruments
    for (what, name, kind), n in counts.items():
        if what == "tokens" and n > 0:
            m.tokens.add(n, {"gen_ai.request.model": name, "karyi.token.type": kind})
        elif what == "calls":
            m.tool_calls.add(n, {"karyi.tool.name": name, "karyi.tool.decision": kind})
    for name, usd in costs.items():
        if usd > 0:
            m.cost.add(usd, {"gen_ai.request.model": name})
    for what, value, attrs in numbers:
        if what == "turn_duration":
            m.turn_duration.record(value, attrs)
        else:
            getattr(m, what).add(value, attrs)
