"""A session's modes (ACP `modes`) and its mode config option, without the agent stack:
`session/new` answers with them at once, before the session's runtime is open
(docs/acp.md#start-up). Every other option needs the settings (config_options.py)."""

from __future__ import annotations

from typing import Literal

from acp.schema import (
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from karyi.agent.prompting.mode_names import MODES

MODE = "mode"
Category = Literal["mode", "model", "thought_level"]


def select(
    config_id: str, name: str, category: Category, current: str, values: list[tuple[str, str]]
) -> SessionConfigOptionSelect:
    """A select config option offering `values` ((value, name) pairs)."""
    return SessionConfigOptionSelect(
        type="select",
        id=config_id,
        name=name,
        category=category,
        current_value=current,
        options=[SessionConfigSelectOption(value=v, name=n) for v, n in values],
    )


def session_modes(current: str) -> SessionModeState:
    """Karyi's session modes for `session/new` and `session/load` (docs/acp.md)."""
    modes = [SessionMode(id=m.id, name=m.name, description=m.description) for m in MODES]
    return SessionModeState(current_mode_id=current, available_modes=modes)


def mode_option(current: str) -> SessionConfigOptionSelect:
    """The `mode` config option, in step with `modes`."""
    return select(MODE, "Mode", "mode", current, [(m.id, m.name) for m in MODES])
