"""What the model is told about the built-in tools, pinned byte for byte.

Every profile's tool prompt in every dialect, the native dialect's function
declarations, each built-in tool class's JSON Schema and `catalogue.json` are compared
with the files under `tests/tools/data/goldens/`. A change to how tools declare their
parameters must not change a byte the model reads; when a difference is right to make,
rewrite the goldens (`python tests/tools/test_goldens.py`) in a commit of its own that
says why (docs/tools.md#parameters).
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import pytest

from karyi.tools.catalogue import CATALOGUE, build, tool_classes
from karyi.tools.profiles import PROFILES, builtin_registry, default_toolkit
from karyi.tools.prompt import declarations, tool_prompt

GOLDENS = Path(__file__).with_name("data") / "goldens"
DIALECTS = ("toolsxml", "agentxml", "toolcall", "native")


def _json(value: object) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


NAMES = sorted(
    [f"prompt.{p}.{d}.txt" for p in PROFILES for d in DIALECTS]
    + [f"declarations.{p}.json" for p in PROFILES]
    + ["schemas.json", "catalogue.json"]
)


@functools.cache
def produced() -> dict[str, str]:
    """Every golden file's name and the text the code makes today."""
    registry = builtin_registry()
    out: dict[str, str] = {}
    for profile in PROFILES:
        toolkit = default_toolkit(registry, profile)
        for dialect in DIALECTS:
            out[f"prompt.{profile}.{dialect}.txt"] = tool_prompt(toolkit, dialect)
        out[f"declarations.{profile}.json"] = _json(declarations(toolkit))
    schemas = {place: cls.parameters for place, cls in tool_classes().items()}
    out["schemas.json"] = _json(schemas)
    out["catalogue.json"] = _json(build())
    return out


def write() -> None:
    """Record the goldens from the code as it is."""
    GOLDENS.mkdir(parents=True, exist_ok=True)
    for name, text in produced().items():
        (GOLDENS / name).write_text(text, encoding="utf-8")


@pytest.mark.parametrize("name", NAMES)
def test_what_the_model_reads_is_unchanged(name: str) -> None:
    golden = (GOLDENS / name).read_text(encoding="utf-8")
    assert produced()[name] == golden, f"{name} differs from tests/tools/data/goldens/{name}"


def test_the_saved_catalogue_is_byte_identical_to_its_golden() -> None:
    assert CATALOGUE.read_text(encoding="utf-8") == (GOLDENS / "catalogue.json").read_text(
        encoding="utf-8"
    )


def test_every_golden_file_is_produced() -> None:
    assert sorted(p.name for p in GOLDENS.iterdir()) == NAMES == sorted(produced())


if __name__ == "__main__":
    write()
    sys.exit(0)
