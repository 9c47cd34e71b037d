"""Putting the managed layer over the merged settings: nothing below may loosen it.

Each kind of key has its own idea of "looser" (docs/security.md#managed-settings):

- a permission (`permissions.tools.NAME`, `shell.sandbox.mode`): the stricter one wins;
- a list of things refused or asked about (command `deny`/`confirm`, `deniedDomains`,
  hooks): the managed entries always stay, the lower layers may add more;
- an allowlist (command `allow`, `allowedDomains`, `writable`, `allowedRoots`,
  `trustedWorkspaces`, `web.allowedHosts`, `models`): the lower layers' entries are kept
  only where the managed list covers them (no lower value: the managed list);
- a switch that opens something (`network`, `autoApprove`, `allowPrivate`,
  `enableShell`, `logPrompts`): a managed `false` stays false;
- a limit (`maxSteps`, `agent.maxCostPerTurn`): the lower one wins;
- objects by name (`mcpServers`, `prices`, `agents`, `diagnostics.servers`, `web.search`):
  the managed object as it is, nothing added below;
- anything else: the managed value, pinned (fail closed).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from typing import Any

from karyi.settings.validation import SettingsWarning

_STRICT = {"auto": 0, "confirm": 1, "deny": 2, "off": 0, "on": 2}


def _stricter(lower: Any, managed: Any) -> Any:
    return lower if _STRICT.get(lower, -1) > _STRICT.get(managed, -1) else managed


def _union(lower: Any, managed: Any) -> Any:
    extra = [v for v in (lower or []) if v not in managed]
    return [*managed, *extra]


def _covered_word(item: str, allowed: list[str]) -> bool:
    """Whether every value `item` can match is matched by an entry of `allowed`: equal,
    or under an entry with one `*` at its start or end (`*.example.com`, `pytest*`)."""
    for entry in allowed:
        if item == entry:
            return True
        if entry.count("*") != 1 or "?" in entry or "[" in entry:
            continue
        if entry.startswith("*") and item.endswith(entry[1:]):
            return True
        if entry.endswith("*") and item.startswith(entry[:-1]):
            return True
    return False


def _covered_command(item: str, allowed: list[str]) -> bool:
    """Whether every command the rule `item` allows, the managed rules allow: the same
    rule, or under an open-ended one whose words are literal (`pytest *` covers
    `pytest -x *`; docs/security.md#command-rules)."""
    for entry in allowed:
        if item == entry:
            return True
        head = entry[:-1]
        if entry.endswith(" *") and not any(c in head for c in "*?[") and item.startswith(head):
            return True
    return False


def _covered_path(item: str, allowed: list[str]) -> bool:
    return any(item == p or item.startswith(p.rstrip("/") + "/") for p in allowed)


def _subset(covered: Callable[[str, list[str]], bool]) -> Callable[[Any, Any], Any]:
    def keep(lower: Any, managed: Any) -> Any:
        if lower is None:
            return list(managed)
        return [v for v in lower if covered(v, managed)]

    return keep


def _closed_switch(lower: Any, managed: Any) -> Any:
    return bool(lower) and bool(managed) if lower is not None else managed


def _lower_limit(lower: Any, managed: Any) -> Any:
    if lower is None or managed is None:
        return managed
    return min(lower, managed)


def _pin(_lower: Any, managed: Any) -> Any:
    return managed


_RULES: dict[str, Callable[[Any, Any], Any]] = {
    "permissions.tools.*": _stricter,
    "shell.sandbox.mode": _stricter,
    "permissions.commands.deny": _union,
    "permissions.commands.confirm": _union,
    "shell.sandbox.deniedDomains": _union,
    "hooks.*": _union,
    "permissions.commands.allow": _subset(_covered_command),
    "shell.sandbox.allowedDomains": _subset(_covered_word),
    "models": _subset(_covered_word),
    "web.allowedHosts": _subset(_covered_word),
    "shell.sandbox.writable": _subset(_covered_path),
    "allowedRoots": _subset(_covered_path),
    "trustedWorkspaces": _subset(_covered_path),
    "shell.sandbox.network": _closed_switch,
    "shell.sandbox.autoApprove": _closed_switch,
    "web.allowPrivate": _closed_switch,
    "gateway.enableShell": _closed_switch,
    "telemetry.logPrompts": _closed_switch,
    "maxSteps": _lower_limit,
    "agent.maxCostPerTurn": _lower_limit,
    "mcpServers": _pin,
    "prices": _pin,
    "agents": _pin,
    "diagnostics.servers": _pin,
    "web.search": _pin,
}


def _rule(path: str) -> Callable[[Any, Any], Any] | None:
    for pattern, rule in _RULES.items():
        if fnmatch.fnmatchcase(path, pattern) and path.count(".") == pattern.count("."):
            return rule
    return None


def apply_managed(
    values: dict[str, Any],
    managed: dict[str, Any],
    lower_set: set[str],
    source: str,
    warnings: list[SettingsWarning],
    prefix: str = "",
) -> set[str]:
    """Put `managed` over `values` in place, key by key by the rules above; `lower_set`
    holds the dotted keys a lower layer set (others are defaults: the managed value).
    Returns the dotted keys whose value is now the managed one."""
    won: set[str] = set()
    for key, want in managed.items():
        path = f"{prefix}{key}"
        rule = _rule(path)
        have = values.get(key)
        if rule is None and isinstance(want, dict):
            if not isinstance(have, dict):
                values[key] = have = {}
            won |= apply_managed(have, want, lower_set, source, warnings, path + ".")
            continue
        lower = have if path in lower_set else None
        result = (rule or _pin)(lower, want)
        if lower is not None and result != lower:
            warnings.append(
                SettingsWarning(
                    source, path, f"{lower!r} overridden by your organisation's settings"
                )
            )
        values[key] = result
        if result != lower:
            won.add(path)
    return won


def keep_allowed_model(
    values: dict[str, Any], managed: dict[str, Any], source: str, warnings: list[SettingsWarning]
) -> bool:
    """When the managed file lists `models`, the model in use must be one of them (or its
    own `model`): another choice falls back to the organisation's (True: it did)."""
    if "models" not in managed or model_allowed(values["model"], managed):
        return False
    fallback = managed.get("model") or next(
        (m for m in managed["models"] if "*" not in m), values["model"]
    )
    warnings.append(
        SettingsWarning(
            source,
            "model",
            f"{values['model']!r} is not among the models your organisation allows; "
            f"using {fallback!r}",
        )
    )
    values["model"] = fallback
    return True


def model_allowed(model: str, managed: dict[str, Any]) -> bool:
    """Whether the managed file lets `model` be used (no list: any model)."""
    if "models" not in managed:
        return "model" not in managed or model == managed["model"]
    allowed = [*managed["models"], *([managed["model"]] if "model" in managed else [])]
    return _covered_word(model, allowed)
