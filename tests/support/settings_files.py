"""Writing settings files and loading settings from them, for the settings tests."""

from __future__ import annotations

import json
from pathlib import Path

from karyi.settings import Settings, load_settings


def write(path: Path, data: object) -> None:
    """Write `data` to `path` as JSON (a string as it is, to test broken files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)


def load(ws: Path | None, user_file: Path, **kw: object) -> Settings:
    """`load_settings` from `user_file`, with an empty environment unless `env` is given."""
    return load_settings(ws, user_file=user_file, env=kw.pop("env", {}), **kw)  # type: ignore[arg-type]
