"""What a workspace's own settings file may set: it may only tighten.

The workspace file comes with the repository, so it cannot set a tool to `auto`, allow
commands, or add allowed roots (a cloned repository must not be able to free the
agent), nor set `baseUrl` or `apiKeyEnv` (it must not be able to send the user's API
key, or any other variable, to a server of its choosing). Nor may it make Karyi run
programs or reach addresses of its choosing: `tools.discoveryCommand`,
`tools.callCommand`, `mcpServers`, `web.search` and `web.allowPrivate` from a workspace
file are ignored (with a warning) unless the user lists the workspace in their own
`trustedWorkspaces`. Nor may it loosen the command sandbox (`shell.sandbox`): it may
switch it `on`, never `off`, never give it the network (nor `allowedDomains`) or
writable paths, never make commands run without asking. Nor may it set `hooks`, `prices`
or `telemetry`, even when trusted, and its `agent.maxCostPerTurn` only lowers the
user's (settings/loading.py). See docs/security.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from karyi.settings.validation import SettingsWarning

_USER_ONLY = (
    "allowedRoots",
    "baseUrl",
    "apiKeyEnv",
    "trustedWorkspaces",
    "hooks",
    "prices",
    "telemetry",
)
_KEY_WHY = (
    "a workspace settings file may not choose where your API key is sent or which "
    "variable it is read from; set it in your user settings"
)
_RUNS_PROGRAMS = (
    ("tools", "discoveryCommand"),
    ("tools", "callCommand"),
    ("mcpServers", None),
    ("diagnostics", "servers"),
    ("navigation", "servers"),
    ("web", "search"),
    ("web", "allowPrivate"),
    ("web", "allowedHosts"),
)
"""Keys that make Karyi run a program or reach an address: user-chosen only, or from a
workspace the user trusts."""
_HOOKS_WHY = (
    "hooks run programs around every tool call and prompt: only your user settings may "
    "set them, even in a trusted workspace (docs/workflow.md#hooks)"
)
_PRICES_WHY = (
    "a workspace settings file may not set model prices (they decide when "
    "agent.maxCostPerTurn stops a turn); set them in your user settings"
)
_TELEMETRY_WHY = (
    "a workspace settings file may not choose where Karyi reports what it does; set "
    "telemetry in your user settings (docs/telemetry.md)"
)
_TRUST_WHY = (
    "a workspace settings file may not choose programs for Karyi to run or addresses for "
    "it to reach; set it in your user settings, or trust this workspace by adding its path "
    "to trustedWorkspaces in your user settings"
)


def tighten_only(
    layer: dict[str, Any], source: str, warnings: list[SettingsWarning], *, trusted: bool
) -> dict[str, Any]:
    """A repository's own settings file may restrict the agent, never free it."""
    why = "a workspace settings file may only tighten permissions; set it in your user settings"
    for key in _USER_ONLY:
        if key in layer:
            reason = why if key in ("allowedRoots", "trustedWorkspaces") else _KEY_WHY
            if key == "hooks":
                reason = _HOOKS_WHY
            elif key == "prices":
                reason = _PRICES_WHY
            elif key == "telemetry":
                reason = _TELEMETRY_WHY
            warnings.append(SettingsWarning(source, key, f"ignored: {reason}"))
    layer = {k: v for k, v in layer.items() if k not in _USER_ONLY}
    if not trusted:
        _drop_program_keys(layer, source, warnings)
    perms = layer.get("permissions")
    if isinstance(perms, dict):
        tools = perms.get("tools")
        if isinstance(tools, dict):
            for name in [n for n, mode in tools.items() if mode == "auto"]:
                warnings.append(
                    SettingsWarning(source, f"permissions.tools.{name}", f"'auto' ignored: {why}")
                )
                del tools[name]
        commands = perms.get("commands")
        if isinstance(commands, dict) and commands.pop("allow", None):
            warnings.append(
                SettingsWarning(source, "permissions.commands.allow", f"ignored: {why}")
            )
    _tighten_sandbox(layer, source, warnings)
    gateway = layer.get("gateway")
    if isinstance(gateway, dict):
        # A repository must neither open the shell to HTTP clients nor pick the token
        # that guards the gateway (it would know the token of every clone it is in).
        if gateway.get("enableShell") is True:
            del gateway["enableShell"]
            warnings.append(SettingsWarning(source, "gateway.enableShell", f"ignored: {why}"))
        if gateway.pop("token", None) is not None:
            warnings.append(SettingsWarning(source, "gateway.token", f"ignored: {why}"))
    return layer


_SANDBOX_LOOSER = (
    ("mode", lambda v: v != "on"),
    ("network", lambda v: v is not False),
    ("writable", lambda v: True),
    ("allowedDomains", lambda v: True),
    ("autoApprove", lambda v: v is not False),
)
"""`shell.sandbox` keys and which of their values would loosen the sandbox: a workspace
may only switch it `on`, keep the network off, and require approvals."""


def _tighten_sandbox(layer: dict[str, Any], source: str, warnings: list[SettingsWarning]) -> None:
    """Drop the `shell.sandbox` values of a workspace layer that would loosen it."""
    shell = layer.get("shell")
    sandbox = shell.get("sandbox") if isinstance(shell, dict) else None
    if not isinstance(sandbox, dict):
        return
    why = (
        "a workspace settings file may only tighten the sandbox (mode on, network false, "
        "autoApprove false); set it in your user settings"
    )
    for key, looser in _SANDBOX_LOOSER:
        if key in sandbox and looser(sandbox[key]):
            del sandbox[key]
            warnings.append(SettingsWarning(source, f"shell.sandbox.{key}", f"ignored: {why}"))


def _drop_program_keys(layer: dict[str, Any], source: str, warnings: list[SettingsWarning]) -> None:
    """Remove the keys of `_RUNS_PROGRAMS` from an untrusted workspace layer."""
    for key, sub in _RUNS_PROGRAMS:
        value = layer.get(key)
        if sub is None and key in layer:
            del layer[key]
        elif sub is not None and isinstance(value, dict) and sub in value:
            if key == "web" and sub == "allowPrivate" and value[sub] is not True:
                continue  # false only tightens
            del value[sub]
        else:
            continue
        name = key if sub is None else f"{key}.{sub}"
        warnings.append(SettingsWarning(source, name, f"ignored: {_TRUST_WHY}"))


def is_trusted(workspace: Path, trusted: list[str]) -> bool:
    """Whether the user's `trustedWorkspaces` lists `workspace` (compared as real paths)."""
    real = os.path.realpath(workspace)
    return any(os.path.realpath(os.path.expanduser(p)) == real for p in trusted)
