"""The OpenTelemetry SDK set up from `telemetry.*`: traces, metrics and logs over OTLP/HTTP.

Everything leaves in batches from the SDK's own threads: a turn only puts spans in a
queue, so a collector that is slow or down never slows it; what the queue or a failed
export drops is counted (`Exporting.dropped`, the `karyi.telemetry.dropped` metric).
The providers are Karyi's own (not the process-wide globals): several runtimes with
different settings, and tests, each have theirs. See docs/telemetry.md.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from opentelemetry._logs import SeverityNumber
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from karyi import __version__

EXPORT_TIMEOUT = 3.0
"""Seconds one export may take (in the SDK's thread, never a turn's)."""
_REF = re.compile(r"\$KARYI\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def resolve_headers(
    headers: Mapping[str, str], secret: Callable[[str], str | None], env: Mapping[str, str]
) -> dict[str, str]:
    """`telemetry.headers` with `$KARYI{NAME}` from the secret store and `${VAR}` from the
    environment (a missing one is left empty)."""

    def value(m: re.Match[str]) -> str:
        return (secret(m[1]) if m[1] else env.get(m[2])) or ""

    return {name: _REF.sub(value, text) for name, text in headers.items()}


class _Counted(SpanExporter):
    """The OTLP span exporter, counting the spans of every failed export."""

    def __init__(self, inner: SpanExporter, owner: Exporting) -> None:
        self.inner = inner
        self.owner = owner

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = self.inner.export(spans)
        if result is not SpanExportResult.SUCCESS:
            self.owner.count_dropped(len(spans))
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class Exporting:
    """Karyi's tracer, meter and logger, exporting to one collector. `interval_ms`: how
    often each signal is exported (tests); None: the SDK's schedule, which the standard
    `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_METRIC_EXPORT_INTERVAL` and `OTEL_BLRP_SCHEDULE_DELAY`
    change (5 s for spans, 60 s for metrics, 1 s for logs)."""

    def __init__(
        self,
        endpoint: str | None,
        headers: dict[str, str] | None,
        *,
        log_prompts: bool = False,
        interval_ms: int | None = None,
        timeout: float = EXPORT_TIMEOUT,
    ) -> None:
        def url(signal: str) -> str | None:
            return f"{endpoint.rstrip('/')}/v1/{signal}" if endpoint else None

        opts: dict[str, Any] = {"headers": headers, "timeout": timeout}
        resource = Resource.create({"service.name": "karyi", "service.version": __version__})
        self.log_prompts = log_prompts
        self.dropped = 0
        self._lock = threading.Lock()
        self.traces = TracerProvider(resource=resource, shutdown_on_exit=False)
        spans = _Counted(OTLPSpanExporter(endpoint=url("traces"), **opts), self)
        self.traces.add_span_processor(BatchSpanProcessor(spans, schedule_delay_millis=interval_ms))
        reader = PeriodicExportingMetricReader(
            OTLPMetricExporter(endpoint=url("metrics"), **opts),
            export_interval_millis=interval_ms,
            export_timeout_millis=timeout * 1000,
        )
        self.metrics = MeterProvider(
            resource=resource, metric_readers=[reader], shutdown_on_exit=False
        )
        self.logs = LoggerProvider(resource=resource, shutdown_on_exit=False)
        self.logs.add_log_record_processor(
            BatchLogRecordProcessor(
                OTLPLogExporter(endpoint=url("logs"), **opts), schedule_delay_millis=interval_ms
            )
        )
        self.tracer = self.traces.get_tracer("karyi", __version__)
        self.meter = self.metrics.get_meter("karyi", __version__)
        self._log = self.logs.get_logger("karyi", __version__)
        self.instruments = Instruments(self.meter)
        self.sessions_seen: set[str] = set()
        self.meter.create_observable_counter(
            "karyi.telemetry.dropped",
            [lambda _options: [_observation(self.dropped)]],
            unit="{span}",
            description="spans an export failed to deliver",
        )
        self._work: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._worker = threading.Thread(target=self._run, name="karyi-telemetry", daemon=True)
        self._worker.start()
        atexit.register(self.shutdown)

    def later(self, work: Callable[[], None]) -> None:
        """Run `work` on the telemetry thread (what a turn recorded, after the turn)."""
        self._work.put(work)

    def _run(self) -> None:
        while (work := self._work.get()) is not None:
            try:
                work()
            except Exception:  # telemetry must never break anything else
                logging.getLogger(__name__).exception("recording telemetry failed")

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until what was handed over so far is recorded (tests, benches, exit)."""
        if self._worker.is_alive():
            done = threading.Event()
            self._work.put(done.set)
            done.wait(timeout)

    def log(self, name: str, body: str, attributes: dict[str, Any], at: int | None = None) -> None:
        """One log record (an event of the turn: docs/telemetry.md#logs)."""
        self._log.emit(
            timestamp=at,
            body=body,
            event_name=name,
            severity_number=SeverityNumber.INFO,
            severity_text="INFO",
            attributes=attributes,
        )

    def count_dropped(self, n: int) -> None:
        """Spans lost on the way (a failed export)."""
        with self._lock:
            self.dropped += n

    def flush(self, timeout_ms: int = 5000) -> None:
        """Export what is queued now (tests, benches; the SDK's threads do it anyway)."""
        self.settle()
        self.traces.force_flush(timeout_ms)
        self.logs.force_flush(timeout_ms)
        self.metrics.force_flush(timeout_ms)

    def shutdown(self) -> None:
        """Flush and stop the exporters (at exit; a collector that is down costs at most
        `EXPORT_TIMEOUT` per signal)."""
        atexit.unregister(self.shutdown)
        self.settle()
        self._work.put(None)
        for provider in (self.traces, self.logs, self.metrics):
            try:
                provider.shutdown()
            except Exception:  # a collector that went away must not fail Karyi's exit
                logging.getLogger(__name__).debug("telemetry shutdown", exc_info=True)


class Instruments:
    """Karyi's metrics (docs/telemetry.md#metrics)."""

    def __init__(self, meter: Any) -> None:
        self.tokens = meter.create_counter(
            "karyi.tokens", unit="{token}", description="tokens by type (input, output, cached)"
        )
        self.cost = meter.create_counter("karyi.cost", unit="USD", description="model cost")
        self.tool_calls = meter.create_counter(
            "karyi.tool_calls", unit="{call}", description="tool calls by tool and decision"
        )
        self.sessions = meter.create_counter(
            "karyi.sessions", unit="{session}", description="sessions that ran a turn"
        )
        self.turns = meter.create_counter("karyi.turns", unit="{turn}", description="turns")
        self.turn_duration = meter.create_histogram(
            "karyi.turn.duration", unit="s", description="how long turns took"
        )


def _observation(value: int) -> Any:
    from opentelemetry.metrics import Observation

    return Observation(value)


_OPEN: dict[tuple[Any, ...], Exporting] = {}
_OPEN_LOCK = threading.Lock()


def exporting_for(
    enabled: bool,
    endpoint: str | None,
    headers: Mapping[str, str],
    log_prompts: bool,
    secret: Callable[[str], str | None],
) -> Exporting | None:
    """The process's exporting for these settings (one per distinct configuration), or
    None when telemetry is off."""
    if not enabled:
        return None
    resolved = resolve_headers(headers, secret, os.environ) if headers else None
    key = (endpoint, tuple(sorted((resolved or {}).items())), log_prompts)
    with _OPEN_LOCK:
        if key not in _OPEN:
            _OPEN[key] = Exporting(endpoint, resolved, log_prompts=log_prompts)
        return _OPEN[key]
