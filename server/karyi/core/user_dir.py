"""The user's own Karyi folder (settings, secrets, keys): outside every workspace."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from platformdirs import user_config_dir


def karyi_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """`<user config dir>/karyi` (KARYI_CONFIG_DIR overrides it)."""
    env = os.environ if env is None else env
    return Path(env.get("KARYI_CONFIG_DIR") or user_config_dir("karyi", appauthor=False))
