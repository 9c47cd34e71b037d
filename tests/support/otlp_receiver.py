"""A local OTLP/HTTP receiver for the telemetry tests and bench: it keeps every export
and decodes it with the OTLP protobuf messages (nothing leaves the machine)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


@dataclass
class Receiver:
    """What was posted to /v1/traces, /v1/metrics and /v1/logs, raw, with the headers."""

    posts: list[tuple[str, bytes, dict[str, str]]] = field(default_factory=list)

    def bodies(self, signal: str) -> list[bytes]:
        return [body for path, body, _ in self.posts if path == f"/v1/{signal}"]

    def spans(self) -> list[Any]:
        out: list[Any] = []
        for body in self.bodies("traces"):
            for rs in ExportTraceServiceRequest.FromString(body).resource_spans:
                for ss in rs.scope_spans:
                    out.extend(ss.spans)
        return out

    def metric_names(self) -> set[str]:
        names: set[str] = set()
        for body in self.bodies("metrics"):
            for rm in ExportMetricsServiceRequest.FromString(body).resource_metrics:
                for sm in rm.scope_metrics:
                    names.update(m.name for m in sm.metrics)
        return names

    def log_bodies(self) -> list[str]:
        out: list[str] = []
        for body in self.bodies("logs"):
            for rl in ExportLogsServiceRequest.FromString(body).resource_logs:
                for sl in rl.scope_logs:
                    out.extend(r.body.string_value for r in sl.log_records)
        return out


def attributes(span: Any) -> dict[str, Any]:
    """A decoded span's attributes as plain values."""
    out: dict[str, Any] = {}
    for kv in span.attributes:
        which = kv.value.WhichOneof("value")
        out[kv.key] = getattr(kv.value, which) if which else None
    return out


def serve() -> Iterator[tuple[str, Receiver]]:
    """Run a receiver on the loopback; yields (base URL, receiver)."""
    received = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            received.posts.append((self.path, body, dict(self.headers.items())))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
