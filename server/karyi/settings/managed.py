"""Managed settings: the organisation's file, above every other layer (docs/security.md).

An administrator (or device management) puts `managed-settings.json` where users cannot
write it. It takes the same keys as any settings file, and nothing below it may loosen
what it sets: `apply_managed` keeps, per kind of key, the stricter of the two values
(tighten.py says how each kind is compared); any key it has no rule for is pinned to the
managed value. A managed file that cannot be read or parsed, or that holds a key the
schema refuses, stops Karyi (`ManagedSettingsError`): it never falls back to no policy.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from karyi.core.errors import ManagedSettingsError
from karyi.settings.files import loads_jsonc
from karyi.settings.validation import SettingsWarning, check_keys

MANAGED_ENV = "KARYI_MANAGED_SETTINGS"
"""Overrides where the managed file is: for tests and packagers, not for users."""


def managed_settings_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the organisation's file is on this system (`KARYI_MANAGED_SETTINGS` wins)."""
    env = os.environ if env is None else env
    if env.get(MANAGED_ENV):
        return Path(env[MANAGED_ENV])
    if sys.platform == "darwin":
        return Path("/Library/Application Support/Karyi/managed-settings.json")
    if sys.platform == "win32":
        base = env.get("ProgramData") or r"C:\ProgramData"
        return Path(base) / "Karyi" / "managed-settings.json"
    return Path("/etc/karyi/managed-settings.json")


def read_managed(path: Path) -> dict[str, Any]:
    """The managed file's keys, checked ({} when there is no file); anything wrong with
    it raises `ManagedSettingsError` naming the file and the reason."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ManagedSettingsError(path, f"cannot be read ({exc})") from None
    try:
        data = loads_jsonc(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise ManagedSettingsError(path, f"is not valid JSON ({exc.msg} at {where})") from None
    if not isinstance(data, dict):
        raise ManagedSettingsError(path, "is not a JSON object")
    problems: list[SettingsWarning] = []
    checked = check_keys(data, str(path), Path("/"), problems)
    if problems:
        why = "; ".join(f"{p.key}: {p.message}" for p in problems)
        raise ManagedSettingsError(path, f"has keys Karyi cannot apply: {why}")
    return checked


def managed_label(path: Path) -> str:
    """How the managed layer is named in sources and messages."""
    return f"organisation ({path})"


def leaf_paths(layer: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Every dotted key `layer` sets, objects and the values inside them."""
    out: list[str] = []
    for key, value in layer.items():
        name = f"{prefix}{key}"
        out.append(name)
        if isinstance(value, dict):
            out.extend(leaf_paths(value, name + "."))
    return out
