"""Checking one settings layer key by key, with a warning that says precisely why.

An unknown or invalid key is dropped with a warning that names the source, the key and
what was expected (or the key it resembles); the lower layer's value stays in force.
"""

from __future__ import annotations

import difflib
import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from karyi.core.schema import ParamValidator
from karyi.settings.model import SCHEMA


@functools.cache
def _validator(key: str) -> ParamValidator:
    """The compiled schema of one key, made when a layer first sets it: compiling all of
    them is most of importing the settings, and a layer sets a few keys
    (docs/architecture.md#the-front-ends)."""
    return ParamValidator(SCHEMA[key], noun="key")


@dataclass(frozen=True)
class SettingsWarning:
    """A key that was ignored, and why."""

    source: str
    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.key}: {self.message}"


def check_keys(
    layer: Mapping[str, Any], source: str, base: Path, warnings: list[SettingsWarning]
) -> dict[str, Any]:
    """The keys of `layer` that fit the schema; root lists made absolute from `base`."""
    out: dict[str, Any] = {}
    for key, value in layer.items():
        if key not in SCHEMA:
            close = difflib.get_close_matches(key, list(SCHEMA), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            warnings.append(SettingsWarning(source, key, f"unknown key, ignored{hint}"))
            continue
        errors = _validator(key).errors(value)
        if errors:
            for e in errors:
                warnings.append(SettingsWarning(source, key, f"{e}; ignored"))
            continue
        if key in ("allowedRoots", "trustedWorkspaces"):
            value = [str((base / os.path.expanduser(r)).resolve()) for r in value]
        out[key] = value
    return out
