"""OpenTelemetry: what the agent does, as traces, metrics and logs (docs/telemetry.md).

- setup.py: the SDK and its OTLP/HTTP exporters from `telemetry.*`, one per configuration
- recorder.py: `TurnRecorder`, one agent's events as spans, metrics and logs

Off by default; nothing here is imported unless `telemetry.enabled` is set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from karyi.agent.turn.loop import Agent
    from karyi.secrets.vault import Vault
    from karyi.settings import Settings


def watch(agent: Agent, settings: Settings, vault: Vault) -> None:
    """Record `agent`'s turns when `telemetry.enabled` (a no-op otherwise)."""
    t = settings.telemetry
    if not t.enabled:
        return
    from karyi.agent.telemetry.recorder import TurnRecorder
    from karyi.agent.telemetry.setup import exporting_for

    exporting = exporting_for(t.enabled, t.otlp_endpoint, t.headers, t.log_prompts, vault.lookup)
    if exporting is not None:
        agent.events.subscribe(TurnRecorder(exporting, agent.conversation.id))
