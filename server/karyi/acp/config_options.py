"""A session's config options (ACP `configOptions`, docs/acp.md#config-options): the
model (the models the VS Code picker offers: settings `model` and `models`, then what
the model's server lists, agent/models.py), the mode (`act`/`plan`, in step with
`session/set_mode`), and, for a model with Anthropic's extended thinking, the thinking
budget (a select: a budget is one of several levels) and prompt caching (a boolean, for
clients that declare boolean options, schema 1.18). A change applies from the session's
next turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from acp.schema import (
    ConfigOptionUpdate,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
)

from karyi.acp.session_modes import mode_option, select
from karyi.llm.families import family
from karyi.settings import Settings

MODEL, THINKING, CACHING = "model", "thinking", "prompt_caching"
THINKING_BUDGETS = (0, 4096, 16000, 32000)
"""The budgets offered (tokens; 0 is off), within the setting's 1024…32000."""

Option = SessionConfigOptionSelect | SessionConfigOptionBoolean


class UnknownOption(ValueError):
    """A `configId` or `value` the session does not offer."""


@dataclass(frozen=True)
class Choice:
    """What one `session/set_config_option` asks for, checked."""

    config_id: str
    value: str | bool
    changes: Mapping[str, Any]
    """The session's model settings to change (`model`, `llm`); empty for the mode."""


def has_thinking(model: str) -> bool:
    """Whether the model's provider takes a thinking budget (Anthropic)."""
    found = family(model.partition(":")[0])
    return found is not None and found.api == "anthropic"


def current_model(settings: Settings, choices: Mapping[str, Any]) -> str:
    """The session's model: its own choice, else the settings'."""
    return str(choices.get(MODEL) or settings.model)


def _llm(settings: Settings, choices: Mapping[str, Any]) -> dict[str, Any]:
    """The session's `llm` settings: its own, else the settings'."""
    llm = choices.get("llm")
    return dict(llm) if isinstance(llm, Mapping) else dict(settings.values["llm"])


def thinking_budget(settings: Settings, choices: Mapping[str, Any]) -> int:
    """The session's thinking budget in tokens (0: off)."""
    return int(_llm(settings, choices).get("thinkingBudget") or 0)


def prompt_caching(settings: Settings, choices: Mapping[str, Any]) -> bool:
    """Whether the session's Anthropic requests mark cache breakpoints."""
    return bool(_llm(settings, choices).get("promptCaching", True))


def config_options(
    settings: Settings,
    choices: Mapping[str, Any],
    mode: str,
    offered: Sequence[str] = (),
    *,
    booleans: bool = False,
) -> list[Option]:
    """Every option of a session, with its current value; `offered` are the models on
    offer (the catalog's), the settings' ones when empty; `booleans`: the client shows
    boolean options (`clientCapabilities.session.configOptions.boolean`)."""
    model = current_model(settings, choices)
    models = list(dict.fromkeys([settings.model, *settings.models, *offered, model]))
    options: list[Option] = [
        select(MODEL, "Model", "model", model, [(m, m) for m in models]),
        mode_option(mode),
    ]
    if has_thinking(model):
        budget = thinking_budget(settings, choices)
        budgets = sorted({*THINKING_BUDGETS, budget})
        named = [(str(b), f"{b} tokens" if b else "Off") for b in budgets]
        options.append(select(THINKING, "Thinking budget", "thought_level", str(budget), named))
        if booleans:
            options.append(
                SessionConfigOptionBoolean(
                    type="boolean",
                    id=CACHING,
                    name="Prompt caching",
                    description="Cache the system prompt and the conversation so far "
                    "(cheaper, faster repeated turns)",
                    category="model_config",
                    current_value=prompt_caching(settings, choices),
                )
            )
    return options


def choice(
    options: list[Option],
    config_id: str,
    value: str | bool,
    settings: Settings,
    choices: Mapping[str, Any],
) -> Choice:
    """Check `value` against the offered option `config_id` (UnknownOption if not: an
    unknown id, a value not listed, a boolean for a select or a string for a boolean)."""
    offered = {o.id: o for o in options}
    if config_id not in offered:
        raise UnknownOption(f"no config option {config_id!r}; offered: {', '.join(offered)}")
    option = offered[config_id]
    if isinstance(option, SessionConfigOptionBoolean):
        if not isinstance(value, bool):
            raise UnknownOption(f"{config_id} is a boolean option: send type boolean, a bool")
        llm = {**_llm(settings, choices), "promptCaching": value}
        return Choice(config_id, value, {"llm": llm})
    values = [getattr(v, "value", None) for v in option.options]
    if isinstance(value, bool) or value not in values:
        raise UnknownOption(
            f"{config_id} cannot be {value!r}; offered: {', '.join(map(str, values))}"
        )
    if config_id == MODEL:
        return Choice(config_id, value, {MODEL: value})
    if config_id == THINKING:
        llm = {**_llm(settings, choices), "thinkingBudget": int(value) or None}
        return Choice(config_id, value, {"llm": llm})
    return Choice(config_id, value, {})


def options_update(options: list[Option]) -> ConfigOptionUpdate:
    """`config_option_update`: the whole list, as the client shows it."""
    return ConfigOptionUpdate(session_update="config_option_update", config_options=options)
