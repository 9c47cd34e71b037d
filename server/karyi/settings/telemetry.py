"""`telemetry`: the OpenTelemetry export of what the agent does (docs/telemetry.md).

Kept apart from sections.py (one attrs class, as there); model.py puts it in the model.
"""

from __future__ import annotations

from typing import ClassVar

import attrs


@attrs.frozen(kw_only=True)
class Telemetry:
    """`telemetry`: traces, metrics and logs over OTLP/HTTP; off by default."""

    closed: ClassVar[bool] = True
    enabled: bool = attrs.field(
        default=False,
        metadata={"description": "send traces, metrics and logs to an OpenTelemetry collector"},
    )
    otlp_endpoint: str | None = attrs.field(
        default=None,
        metadata={
            "pattern": "^https?://",
            "description": "the collector's base URL (signals go to /v1/traces, /v1/metrics, "
            "/v1/logs; null: OTEL_EXPORTER_OTLP_ENDPOINT or http://localhost:4318)",
        },
    )
    headers: dict[str, str] = attrs.field(
        factory=dict,
        metadata={
            "description": "HTTP headers of every export; a value may be $KARYI{NAME} (the "
            "secret store) or ${VAR} (the environment)"
        },
    )
    log_prompts: bool = attrs.field(
        default=False,
        metadata={
            "description": "include prompt, command and parameter text (redacted of secrets)"
        },
    )
