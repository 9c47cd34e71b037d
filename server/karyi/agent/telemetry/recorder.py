"""A session's agent events as OpenTelemetry spans, metrics and logs.

One `TurnRecorder` listens to one agent's event stream (events.py; the stream redacts
secrets before any listener sees them). A turn is a span; each model request a child
of it; each tool call a child of the model request whose reply held it; a subagent's
turn (its events come wrapped in `Subagent` events) a `karyi.subagent` span under the
tool call that started it, with its own model requests and tool calls below. Attributes
carry durations, decisions, tokens and cost, never text: prompts, parameters and
commands only with `telemetry.logPrompts`. Recording only queues (setup.py exports in
its own threads). See docs/telemetry.md.
"""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode

from karyi.agent import events as ev
from karyi.agent.telemetry.setup import Exporting


class _Pending:
    """A span as the turn records it: plain values and wall-clock times, made into an
    OpenTelemetry span after the turn (`build`), off the turn's thread."""

    __slots__ = ("attrs", "end_ns", "events", "name", "parent", "start_ns", "status")

    def __init__(self, name: str, parent: _Pending | None, attrs: dict[str, Any]) -> None:
        self.name, self.parent, self.attrs = name, parent, attrs
        self.start_ns, self.end_ns = time.time_ns(), 0
        self.events: list[tuple[str, int]] = []
        self.status: str | None = None

    def set_attribute(self, key: str, value: Any) -> None:
        self.attrs[key] = value

    def set_attributes(self, attrs: dict[str, Any]) -> None:
        self.attrs.update(attrs)

    def set_status(self, error: str) -> None:
        self.status = error

    def add_event(self, name: str) -> None:
        self.events.append((name, time.time_ns()))

    def end(self) -> None:
        self.end_ns = self.end_ns or time.time_ns()


def build(tracer: Any, pending: list[_Pending]) -> None:
    """Make the recorded spans real, parents first (they were recorded first)."""
    made: dict[int, Span] = {}
    for p in pending:
        parent = made.get(id(p.parent)) if p.parent is not None else None
        context = trace.set_span_in_context(parent) if parent is not None else None
        span = tracer.start_span(p.name, context=context, attributes=p.attrs, start_time=p.start_ns)
        for name, at in p.events:
            span.add_event(name, timestamp=at)
        if p.status is not None:
            span.set_status(Status(StatusCode.ERROR, p.status))
        span.end(end_time=p.end_ns or time.time_ns())
        made[id(p)] = span


_HANDLERS = {
    "turnStarted": "_turn_started",
    "step": "_step",
    "usage": "_usage",
    "toolQueued": "_tool_queued",
    "toolAwaitingPermission": "_tool_asked",
    "toolDone": "_tool_done",
    "error": "_error",
    "turnFinished": "_turn_finished",
    "subagent": "_subagent",
}
"""The events recorded, by kind, and the method that records each."""


class _Trace:
    """The open spans of one agent's turn: the session's agent (`parent` None, its turn a
    root `karyi.turn`) or a subagent run by a tool call (`parent` that call's span, its
    turn a `karyi.subagent` under it). What it records goes to `sink`, the recorder's."""

    def __init__(self, sink: TurnRecorder, parent: _Pending | None, agent: str = "") -> None:
        self.sink, self.parent, self.agent = sink, parent, agent
        self.turn: _Pending | None = None
        self.model: _Pending | None = None
        self.model_name = ""
        self.tools: dict[str, _Pending] = {}
        self.subs: dict[str, _Trace] = {}
        self.started = 0.0
        self.seen = (0, 0, 0, 0.0)

    def __call__(self, event: ev.Event) -> None:
        name = _HANDLERS.get(event.kind)
        if name is not None:
            getattr(self, name)(event)

    def _turn_started(self, e: ev.TurnStarted) -> None:
        self.end("interrupted")
        attrs: dict[str, Any] = {
            "karyi.session.id": e.session_id,
            "karyi.turn.id": e.turn_id,
            "karyi.mode": e.mode,
            "karyi.prompt.chars": len(e.message),
        }
        if self.sink.x.log_prompts:
            attrs["karyi.prompt"] = e.message
        if self.parent is not None:
            attrs["karyi.agent.name"] = self.agent
        name = "karyi.turn" if self.parent is None else "karyi.subagent"
        self.turn = self.sink.child(name, self.parent, attrs)
        self.started, self.seen = time.monotonic(), (0, 0, 0, 0.0)
        if self.parent is None:
            self.sink.turn_started(e)

    def _step(self, e: ev.Step) -> None:
        self._end_model()
        self.model_name = e.model
        attrs = {"karyi.step": e.step, "gen_ai.request.model": e.model}
        self.model = self.sink.child("karyi.model_request", self.turn, attrs)

    def _usage(self, e: ev.Usage) -> None:
        cost = e.turn_cost or 0.0
        old_in, old_out, old_cached, old_cost = self.seen
        delta = (e.input_tokens - old_in, e.output_tokens - old_out, e.cached_tokens - old_cached)
        self.seen = (e.input_tokens, e.output_tokens, e.cached_tokens, cost)
        counts = self.sink.counts
        for kind, n in zip(("input", "output", "cached"), delta, strict=True):
            counts[("tokens", self.model_name, kind)] += n
        self.sink.costs[self.model_name] += cost - old_cost
        if self.model is not None:
            self.model.set_attributes(
                {
                    "gen_ai.usage.input_tokens": delta[0],
                    "gen_ai.usage.output_tokens": delta[1],
                    "karyi.usage.cached_tokens": delta[2],
                    "karyi.cost.usd": round(cost - old_cost, 6),
                }
            )
            self._end_model()

    def _tool_queued(self, e: ev.ToolQueued) -> None:
        attrs: dict[str, Any] = {"karyi.tool.name": e.call.name, "karyi.tool.call_id": e.call.id}
        if self.sink.x.log_prompts:
            attrs["karyi.tool.params"] = json.dumps(e.call.params, default=str)
        parent = self.model or self.turn
        self.tools[e.call.id] = self.sink.child("karyi.tool_call", parent, attrs)

    def _tool_asked(self, e: ev.ToolAwaitingPermission) -> None:
        if (span := self.tools.get(e.call.id)) is not None:
            span.add_event("karyi.permission_asked")

    def _tool_done(self, e: ev.ToolDone) -> None:
        span = self.tools.pop(e.call.id, None)
        if (sub := self.subs.pop(e.call.id, None)) is not None:
            sub.end("interrupted")
        error = e.result.error.code if e.result.error is not None else None
        self.sink.counts[("calls", e.call.name, e.decision)] += 1
        if error is not None or e.decision not in ("auto", "approved"):
            attrs = {"karyi.tool.name": e.call.name, "karyi.tool.decision": e.decision}
            if error is not None:
                attrs["karyi.tool.error"] = str(error)
            self.sink.log("karyi.tool_call", f"tool call {e.call.name}: {e.decision}", attrs)
        if span is None:
            return
        span.set_attributes(
            {
                "karyi.tool.decision": e.decision,
                "karyi.tool.success": e.result.success,
                "karyi.tool.seconds": round(e.seconds, 6),
            }
        )
        if error is not None:
            span.set_attribute("karyi.tool.error", str(error))
            span.set_status(str(error))
        span.end()

    def _subagent(self, e: ev.Subagent) -> None:
        """A subagent's event, on the stream of the agent whose call `e.call_id` runs it:
        its own trace, under that call's span."""
        sub = self.subs.get(e.call_id)
        if sub is None:
            sub = self.subs[e.call_id] = _Trace(self.sink, self.tools.get(e.call_id), e.agent)
        sub(e.event)

    def _error(self, e: ev.Error) -> None:
        if self.turn is not None:
            self.turn.set_attribute("karyi.error.kind", e.error_kind)
            self.turn.set_status(e.error_kind)

    def _turn_finished(self, e: ev.TurnFinished) -> None:
        if self.turn is not None:
            self.turn.set_attributes(
                {
                    "karyi.turn.steps": e.steps,
                    "gen_ai.usage.input_tokens": e.input_tokens,
                    "gen_ai.usage.output_tokens": e.output_tokens,
                    "karyi.usage.cached_tokens": e.cached_tokens,
                    "karyi.cost.usd": round(e.turn_cost or 0.0, 6),
                }
            )
        if self.parent is None:
            self.sink.turn_finished(e, time.monotonic() - self.started)
        self.end(e.stop_reason)

    def _end_model(self) -> None:
        if self.model is not None:
            self.model.end()
            self.model = None

    def end(self, stop_reason: str) -> None:
        """Close what is open (a turn that ended without its `turnFinished`: interrupted)."""
        for sub in self.subs.values():
            sub.end("interrupted")
        self.subs.clear()
        self._end_model()
        for span in self.tools.values():
            span.set_attribute("karyi.tool.decision", "unfinished")
            span.end()
        self.tools.clear()
        if self.turn is not None:
            self.turn.set_attribute("karyi.turn.stop_reason", stop_reason)
            self.turn.end()
            self.turn = None
        if self.parent is None:
            self.sink.hand_over()


class TurnRecorder:
    """Listener of one agent's events (see the module docstring)."""

    def __init__(self, exporting: Exporting, session_id: str) -> None:
        self.x = exporting
        self.session_id = session_id
        self.recorded: list[_Pending] = []
        self.logs: list[tuple[str, str, dict[str, Any], int]] = []
        self.numbers: list[tuple[str, float, dict[str, Any]]] = []
        self.counts: Counter[tuple[str, str, str]] = Counter()
        self.costs: defaultdict[str, float] = defaultdict(float)
        self.top = _Trace(self, None)

    def __call__(self, event: ev.Event) -> None:
        """Record `event` (kinds without a handler are not recorded)."""
        self.top(event)

    def child(self, name: str, parent: _Pending | None, attrs: dict[str, Any]) -> _Pending:
        """A new span, recorded (made real after the turn)."""
        span = _Pending(name, parent, attrs)
        self.recorded.append(span)
        return span

    def log(self, name: str, body: str, attrs: dict[str, Any]) -> None:
        """A log record, kept until the turn is handed over."""
        self.logs.append((name, body, attrs, time.time_ns()))

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
        """Give what the turn recorded to the exporting's thread, which makes it spans,
        metrics and logs after the turn: doing it as the events come would cost the turn
        (benches/bench_telemetry.py)."""
        if not (self.recorded or self.numbers):
            return
        spans, logs, numbers = self.recorded, self.logs, self.numbers
        counts, costs = dict(self.counts), dict(self.costs)
        self.recorded, self.logs, self.numbers = [], [], []
        self.counts.clear()
        self.costs.clear()
        x = self.x

        def work() -> None:
            build(x.tracer, spans)
            _add_metrics(x, counts, costs, numbers)
            for name, body, attrs, at in logs:
                x.log(name, body, attrs, at)

        x.later(work)


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
