"""The settings files: where they are, and how they are read (JSON with comments)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from karyi.core.user_dir import karyi_config_dir
from karyi.protocol.jsonscan import strip_trailing_commas
from karyi.settings.validation import SettingsWarning

_JSONC = re.compile(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/', re.S)


def user_settings_path(env: Mapping[str, str] | None = None) -> Path:
    """`<user config dir>/karyi/settings.json` (KARYI_CONFIG_DIR overrides the dir)."""
    return karyi_config_dir(env) / "settings.json"


def workspace_settings_path(workspace: Path) -> Path:
    """`.karyi/settings.json` in the workspace."""
    return workspace / ".karyi" / "settings.json"


def loads_jsonc(text: str) -> Any:
    """JSON with // and /* */ comments and trailing commas, as editors write it."""
    return json.loads(strip_trailing_commas(_JSONC.sub(lambda m: m.group(1) or "", text)))


def file_layer(path: Path, warnings: list[SettingsWarning]) -> dict[str, Any]:
    """The JSON object in `path` ({} when missing); an unreadable or broken file is
    ignored as a whole, with a warning that says where it broke."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        warnings.append(SettingsWarning(str(path), "(file)", f"cannot read: {exc.strerror}"))
        return {}
    try:
        data = loads_jsonc(text)
    except json.JSONDecodeError as exc:
        warnings.append(
            SettingsWarning(
                str(path),
                "(file)",
                f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                "the whole file was ignored",
            )
        )
        return {}
    if not isinstance(data, dict):
        warnings.append(SettingsWarning(str(path), "(file)", "expected a JSON object; ignored"))
        return {}
    return data
