"""`karyi settings`: the settings in force and the layer each value came from.

An administrator checks with it that the organisation's managed file is applied, a user
why a key has the value it has (docs/settings.md, docs/security.md#managed-settings).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Mapping
from typing import Any

from karyi.agent.frontend.startup import EXIT_OK, settings_for, workspace_root

PINNED = "pinned by your organisation"


def _leaves(values: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in values.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def _pinned(key: str, pins: set[str]) -> bool:
    parts = key.split(".")
    return any(".".join(parts[:end]) in pins for end in range(1, len(parts) + 1))


def cmd_settings(args: argparse.Namespace) -> int:
    """Print `key = value  (source)` for every key, or the same as JSON with `--json`."""
    settings = settings_for(workspace_root(args.workspace), args)
    pins = set(settings.pinned)
    rows = [
        (key, value, settings.source_of(key), _pinned(key, pins))
        for key, value in _leaves(settings.values)
    ]
    if args.json:
        out = {k: {"value": v, "source": s, "pinned": p} for k, v, s, p in rows}
        print(json.dumps(out, indent=2))
        return EXIT_OK
    if settings.managed:
        print(f"# {len(settings.managed)} top-level keys {PINNED}: {settings.managed_source}")
    for key, value, source, pinned in rows:
        mark = f"  [{PINNED}]" if pinned else ""
        print(f"{key} = {json.dumps(value)}  ({source}){mark}")
    return EXIT_OK
