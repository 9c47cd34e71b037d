"""A turn's recorded events replayed as spans (on the telemetry thread, after the turn).

`Trace` holds the open spans of one agent's turn and replays its events into `Pending`
spans: the turn, a `karyi.model_request` per step, a `karyi.tool_call` per call under
the request whose reply held it, and a subagent's turn (its events come wrapped in
`Subagent` events) as a `karyi.subagent` under the call that ran it. `build` makes them
OpenTelemetry spans, parents first. See docs/telemetry.md#traces.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any, Protocol

from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode

from karyi.agent import events as ev
from karyi.agent.telemetry.setup import Exporting


class Sink(Protocol):
    """Where a `Trace` puts what it replays (recorder.py's `Replay`)."""

    x: Exporting
    now: int
    counts: Counter[tuple[str, str, str]]
    costs: defaultdict[str, float]

    def child(self, name: str, parent: Pending | None, attrs: dict[str, Any]) -> Pending: ...
    def log(self, name: str, body: str, attrs: dict[str, Any]) -> None: ...
    def turn_started(self, e: ev.TurnStarted) -> None: ...
    def turn_finished(self, e: ev.TurnFinished, seconds: float) -> None: ...
    def hand_over(self) -> None: ...


class Pending:
    """A span as replayed from the turn's events: plain values and the events' wall-clock
    times, made into an OpenTelemetry span by `build`."""

    __slots__ = ("attrs", "end_ns", "events", "name", "parent", "start_ns", "status")

    def __init__(self, name: str, parent: Pending | None, attrs: dict[str, Any], at: int) -> None:
        self.name, self.parent, self.attrs = name, parent, attrs
        self.start_ns, self.end_ns = at, 0
        self.events: list[tuple[str, int]] = []
        self.status: str | None = None

    def set_attribute(self, key: str, value: Any) -> None:
        self.attrs[key] = value

    def set_attributes(self, attrs: dict[str, Any]) -> None:
        self.attrs.update(attrs)

    def set_status(self, error: str) -> None:
        self.status = error

    def add_event(self, name: str, at: int) -> None:
        self.events.append((name, at))

    def end(self, at: int) -> None:
        self.end_ns = self.end_ns or at


def build(tracer: Any, pending: list[Pending]) -> None:
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
        span.end(end_time=p.end_ns or p.start_ns)
        made[id(p)] = span


HANDLERS = {
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


class Trace:
    """The open spans of one agent's turn: the session's agent (`parent` None, its turn a
    root `karyi.turn`) or a subagent run by a tool call (`parent` that call's span, its
    turn a `karyi.subagent` under it). What it records goes to `sink`, the recorder's."""

    def __init__(self, sink: Sink, parent: Pending | None, agent: str = "") -> None:
        self.sink, self.parent, self.agent = sink, parent, agent
        self.turn: Pending | None = None
        self.model: Pending | None = None
        self.model_name = ""
        self.tools: dict[str, Pending] = {}
        self.subs: dict[str, Trace] = {}
        self.started = 0
        self.seen = (0, 0, 0, 0.0)

    def __call__(self, event: ev.Event) -> None:
        """Replay `event` (at `sink.now`)."""
        name = HANDLERS.get(event.kind)
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
        self.started, self.seen = self.sink.now, (0, 0, 0, 0.0)
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
            span.add_event("karyi.permission_asked", self.sink.now)

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
        span.end(self.sink.now)

    def _subagent(self, e: ev.Subagent) -> None:
        """A subagent's event, on the stream of the agent whose call `e.call_id` runs it:
        its own trace, under that call's span."""
        sub = self.subs.get(e.call_id)
        if sub is None:
            sub = self.subs[e.call_id] = Trace(self.sink, self.tools.get(e.call_id), e.agent)
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
            self.sink.turn_finished(e, (self.sink.now - self.started) / 1e9)
        self.end(e.stop_reason)

    def _end_model(self) -> None:
        if self.model is not None:
            self.model.end(self.sink.now)
            self.model = None

    def end(self, stop_reason: str) -> None:
        """Close what is open (a turn that ended without its `turnFinished`: interrupted)."""
        for sub in self.subs.values():
            sub.end("interrupted")
        self.subs.clear()
        self._end_model()
        for span in self.tools.values():
            span.set_attribute("karyi.tool.decision", "unfinished")
            span.end(self.sink.now)
        self.tools.clear()
        if self.turn is not None:
            self.turn.set_attribute("karyi.turn.stop_reason", stop_reason)
            self.turn.end(self.sink.now)
            self.turn = None
        if self.parent is None:
            self.sink.hand_over()
