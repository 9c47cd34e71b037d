"""Validating SARIF against the official SARIF 2.1.0 schema, as the npm package
`@microsoft/jest-sarif` ships it (installed in tests/sarif_schema by `make sarif-schema`,
which `make test` runs)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA = (
    Path(__file__).resolve().parents[1]
    / "sarif_schema/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"
)


@functools.cache
def _validator() -> jsonschema.Draft4Validator:
    if not SCHEMA.is_file():
        raise AssertionError(f"no SARIF schema at {SCHEMA}: run `make sarif-schema`")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


def validate_sarif(log: Any) -> None:
    """Fail with every schema error of `log`, each with its JSON path."""
    errors = sorted(_validator().iter_errors(log), key=lambda e: list(e.absolute_path))
    messages = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]
    assert not messages, "invalid SARIF:\n" + "\n".join(messages)
