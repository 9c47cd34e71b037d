"""Loading the settings: defaults, user file, workspace file, editor, environment, flags,
and over them all the organisation's managed file.

Later layers win; objects merge key by key. Every layer is checked key by key against
the schema (validation.py); the workspace file may only tighten (workspace_trust.py);
nothing may loosen the managed file (managed.py, tighten.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from karyi.settings.accessors import Settings
from karyi.settings.files import file_layer, user_settings_path, workspace_settings_path
from karyi.settings.managed import leaf_paths, managed_label, managed_settings_path, read_managed
from karyi.settings.model import DEFAULTS, SCHEMA
from karyi.settings.plugin_layer import plugin_layer
from karyi.settings.plugins import enabled_plugins
from karyi.settings.tighten import apply_managed, keep_allowed_model
from karyi.settings.validation import SettingsWarning, check_keys
from karyi.settings.workspace_trust import is_trusted, tighten_only

ENVIRONMENT = {
    "KARYI_MODEL": "model",
    "KARYI_BASE_URL": "baseUrl",
    "KARYI_DIALECT": "dialect",
    "KARYI_PROFILE": "profile",
    "KARYI_MAX_STEPS": "maxSteps",
}


def _nest(layer: Mapping[str, Any]) -> dict[str, Any]:
    """Editor-style keys (`karyi.shell.timeoutSeconds`) as nested objects."""
    out: dict[str, Any] = {}
    for key, value in layer.items():
        key = key.removeprefix("karyi.")
        if "." in key and key.split(".", 1)[0] in SCHEMA:
            head, _, rest = key.partition(".")
            sub = out.setdefault(head, {})
            if isinstance(sub, dict):
                sub.update(_nest({rest: value}))
            continue
        if isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key].update(value)
        else:
            out[key] = value
    return out


def _check(
    layer: Mapping[str, Any],
    source: str,
    base: Path,
    warnings: list[SettingsWarning],
    *,
    untrusted: bool = False,
    trusted: bool = False,
) -> dict[str, Any]:
    """The valid keys of one layer, after the workspace file's tightening."""
    nested = _nest(layer)
    if untrusted:
        nested = tighten_only(nested, source, warnings, trusted=trusted)
    return check_keys(nested, source, base, warnings)


def _merge(into: dict[str, Any], layer: Mapping[str, Any]) -> None:
    """Merge `layer` into `into`: objects key by key, anything else replaced."""
    for key, value in layer.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def _env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    """The keys the `KARYI_*` variables of `ENVIRONMENT` set (`maxSteps` as a number)."""
    out: dict[str, Any] = {}
    for var, key in ENVIRONMENT.items():
        if var in env and env[var] != "":
            value: Any = env[var]
            if key == "maxSteps" and value.strip().lstrip("-").isdigit():
                value = int(value)
            out[key] = value
    return out


def _lower_cost_limit_only(layer: dict[str, Any], values: Mapping[str, Any]) -> None:
    """A workspace's `agent.maxCostPerTurn` may lower the user's limit, never raise it."""
    agent = layer.get("agent")
    mine = (values.get("agent") or {}).get("maxCostPerTurn")
    if isinstance(agent, dict) and agent.get("maxCostPerTurn") is not None and mine is not None:
        agent["maxCostPerTurn"] = min(float(agent["maxCostPerTurn"]), float(mine))
    elif isinstance(agent, dict) and mine is not None:
        agent.pop("maxCostPerTurn", None)


def load_settings(
    workspace: Path | None = None,
    *,
    editor: Mapping[str, Any] | None = None,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    user_file: Path | None = None,
    managed_file: Path | None = None,
) -> Settings:
    """Merge every layer for `workspace` (see the package docstring); a broken managed
    file raises `ManagedSettingsError`."""
    env = os.environ if env is None else env
    managed_path = managed_file or managed_settings_path(env)
    managed = read_managed(managed_path)
    warnings: list[SettingsWarning] = []
    values: dict[str, Any] = json.loads(json.dumps(DEFAULTS))
    sources = dict.fromkeys(values, "default")
    cwd = Path.cwd()
    layers: list[tuple[str, Mapping[str, Any], Path, bool]] = []
    user = user_file or user_settings_path(env)
    layers.append((str(user), file_layer(user, warnings), Path.home(), False))
    if workspace is not None:
        ws_file = workspace_settings_path(workspace)
        layers.append((str(ws_file), file_layer(ws_file, warnings), workspace, True))
    if editor:
        layers.append(("editor settings", editor, workspace or cwd, False))
    layers.append(("environment", _env_layer(env), cwd, False))
    if flags:
        given = {k: v for k, v in flags.items() if v is not None}
        layers.append(("command line", given, cwd, False))
    for source, layer, base, untrusted in layers:
        trusted = _trusted(workspace, values, managed)
        checked = _check(layer, source, base, warnings, untrusted=untrusted, trusted=trusted)
        if untrusted:
            _lower_cost_limit_only(checked, values)
        _merge(values, checked)
        sources.update(dict.fromkeys(checked, source))
        sources.update(dict.fromkeys(leaf_paths(checked), source))
    trusted = _trusted(workspace, values, managed)
    for source, layer, untrusted in plugin_layers(workspace, env, warnings):
        checked = _check(
            layer, source, workspace or cwd, warnings, untrusted=untrusted, trusted=trusted
        )
        add_only(values, checked)
        added = [*checked, *leaf_paths(checked)]
        sources.update({k: source for k in added if sources.get(k, "default") == "default"})
    label = managed_label(managed_path)
    if managed:  # above every layer, plugins included: nothing below loosens it
        lower_set = {k for k, v in sources.items() if v != "default"}
        won = apply_managed(values, managed, lower_set, label, warnings)
        if keep_allowed_model(values, managed, label, warnings):
            won.add("model")
        sources.update(dict.fromkeys(won, label))
    return Settings(values, tuple(warnings), sources, managed=managed, managed_source=label)


def _trusted(workspace: Path | None, values: Mapping[str, Any], managed: Mapping[str, Any]) -> bool:
    """Whether the workspace is trusted by the settings so far, and by the managed file's
    list when it has one."""
    if workspace is None or not is_trusted(workspace, values["trustedWorkspaces"]):
        return False
    return "trustedWorkspaces" not in managed or is_trusted(workspace, managed["trustedWorkspaces"])


def plugin_layers(
    workspace: Path | None, env: Mapping[str, str], warnings: list[SettingsWarning]
) -> list[tuple[str, dict[str, Any], bool]]:
    """Each enabled plugin's layer (plugin_layer.py): (source, layer, whether it may
    only tighten), the user's plugins first."""
    out: list[tuple[str, dict[str, Any], bool]] = []
    for plugin in enabled_plugins(workspace, env):
        source = f"plugin {plugin.name} ({plugin.scope})"
        layer, notes = plugin_layer(plugin)
        warnings += [SettingsWarning(source, "plugin", note) for note in notes]
        out.append((source, layer, not plugin.trusted))
    return out


def add_only(into: dict[str, Any], layer: Mapping[str, Any]) -> None:
    """Merge a plugin's `layer` under what is there: objects key by key, a value only
    where none is set (defaults included: a plugin adds, it never changes a value),
    hook lists appended."""
    for key, value in layer.items():
        here = into.get(key)
        if key == "hooks" and isinstance(value, dict) and isinstance(here, dict):
            for event, hooks in value.items():
                here[event] = [*(here.get(event) or []), *hooks]
        elif isinstance(value, dict) and isinstance(here, dict):
            add_only(here, value)
        elif key not in into:
            into[key] = value
