"""A session's config options (ACP `configOptions`, docs/acp.md#config-options): the
model (the models the VS Code picker offers: settings `model` and `models`, then what
the model's server lists, agent/models.py), the mode (`act`/`plan`, in
step with `session/set_mode`), and the thinking budget where the model has one
(Anthropic's extended thinking). A change applies from the session's next turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from acp.schema import (
    ConfigOptionUpdate,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
)

from karyi.agent.prompting.modes import MODES
from karyi.llm.families import family
from karyi.settings import Settings

MODEL, MODE, THINKING = "model", "mode", "thinking"
THINKING_BUDGETS = (0, 4096, 16000, 32000)
"""The budgets offered (tokens; 0 is off), within the setting's 1024…32000."""

Option = SessionConfigOptionSelect | SessionConfigOptionBoolean
Category = Literal["mode", "model", "thought_level"]


class UnknownOption(ValueError):
    """A `configId` or `value` the session does not offer."""


@dataclass(frozen=True)
class Choice:
    """What one `session/set_config_option` asks for, checked."""

    config_id: str
    value: str
    changes: Mapping[str, Any]
    """The session's model settings to change (`model`, `llm`); empty for the mode."""


def _select(
    config_id: str, name: str, category: Category, current: str, values: list[tuple[str, str]]
) -> Option:
    return SessionConfigOptionSelect(
        type="select",
        id=config_id,
        name=name,
        category=category,
        current_value=current,
        options=[SessionConfigSelectOption(value=v, name=n) for v, n in values],
    )


def has_thinking(model: str) -> bool:
    """Whether the model's provider takes a thinking budget (Anthropic)."""
    found = family(model.partition(":")[0])
    return found is not None and found.api == "anthropic"


def current_model(settings: Settings, choices: Mapping[str, Any]) -> str:
    """The session's model: its own choice, else the settings'."""
    return str(choices.get(MODEL) or settings.model)


def thinking_budget(settings: Settings, choices: Mapping[str, Any]) -> int:
    """The session's thinking budget in tokens (0: off)."""
    llm = choices.get("llm")
    if isinstance(llm, Mapping):
        return int(llm.get("thinkingBudget") or 0)
    return settings.thinking_budget


def config_options(
    settings: Settings, choices: Mapping[str, Any], mode: str, offered: Sequence[str] = ()
) -> list[Option]:
    """Every option of a session, with its current value; `offered` are the models on
    offer (the catalog's), the settings' ones when empty."""
    model = current_model(settings, choices)
    models = list(dict.fromkeys([settings.model, *settings.models, *offered, model]))
    options = [
        _select(MODEL, "Model", "model", model, [(m, m) for m in models]),
        _select(MODE, "Mode", "mode", mode, [(m.id, m.name) for m in MODES]),
    ]
    if has_thinking(model):
        budget = thinking_budget(settings, choices)
        budgets = sorted({*THINKING_BUDGETS, budget})
        named = [(str(b), f"{b} tokens" if b else "Off") for b in budgets]
        options.append(_select(THINKING, "Thinking budget", "thought_level", str(budget), named))
    return options


def choice(options: list[Option], config_id: str, value: str, settings: Settings) -> Choice:
    """Check `value` against the offered option `config_id` (UnknownOption if not)."""
    offered = {o.id: o for o in options}
    if config_id not in offered:
        raise UnknownOption(f"no config option {config_id!r}; offered: {', '.join(offered)}")
    option = offered[config_id]
    listed = option.options if isinstance(option, SessionConfigOptionSelect) else []
    values = [getattr(v, "value", None) for v in listed]
    if value not in values:
        raise UnknownOption(
            f"{config_id} cannot be {value!r}; offered: {', '.join(map(str, values))}"
        )
    if config_id == MODEL:
        return Choice(config_id, value, {MODEL: value})
    if config_id == THINKING:
        llm = {**settings.values["llm"], "thinkingBudget": int(value) or None}
        return Choice(config_id, value, {"llm": llm})
    return Choice(config_id, value, {})


def options_update(options: list[Option]) -> ConfigOptionUpdate:
    """`config_option_update`: the whole list, as the client shows it."""
    return ConfigOptionUpdate(session_update="config_option_update", config_options=options)
