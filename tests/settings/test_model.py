"""The settings are one typed model (settings/model.py): the schema each layer is checked
against, the defaults, the typed values and VS Code's settings schema all come from it."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest

from karyi.core.schema import ParamValidator
from karyi.core.typed_json import from_json, to_json
from karyi.protocol import DIALECTS
from karyi.settings import DEFAULTS, SCHEMA, Settings
from karyi.settings.editor_schema import configuration, with_configuration
from karyi.settings.model import SettingsModel
from karyi.settings.reference import with_table
from karyi.settings.sections import DialectName, Hook, Shell

ROOT = Path(__file__).resolve().parents[2]


def test_package_json_carries_the_generated_settings_schema() -> None:
    text = (ROOT / "client-vscode" / "package.json").read_text()
    assert with_configuration(text) == text, "run `make protocol` and commit package.json"


def test_docs_settings_md_carries_the_generated_table_of_every_key() -> None:
    page = (ROOT / "docs" / "settings.md").read_text()
    assert with_table(page) == page, "run `make protocol` and commit docs/settings.md"
    for key in SCHEMA:
        assert f"| `{key}` |" in page or f"| `{key}." in page, key


def test_the_editor_sees_the_model_types_with_its_own_defaults() -> None:
    props = configuration()["properties"]
    assert props["karyi.dialect"]["enum"] == [None, *DIALECTS]
    assert props["karyi.maxSteps"] == {
        "type": ["integer", "null"],
        "default": None,
        "minimum": 1,
        "description": "The most model calls one turn may make.",
    }
    assert props["karyi.models"]["items"] == SCHEMA["models"]["items"]


def test_the_dialects_of_the_model_are_the_protocols() -> None:
    assert list(typing.get_args(DialectName)) == list(DIALECTS)


def test_the_defaults_fit_the_schema_and_are_the_typed_defaults() -> None:
    for key, schema in SCHEMA.items():
        assert ParamValidator(schema, noun="key").errors(DEFAULTS[key]) == [], key
    assert to_json(SettingsModel()) == DEFAULTS
    assert Settings().values == DEFAULTS
    assert Settings().shell == Shell()


def test_json_becomes_typed_values_and_back() -> None:
    values = json.loads(json.dumps(DEFAULTS))
    values["hooks"]["afterTool"] = [{"command": "ruff check", "match": "edit*"}]
    values["agents"] = {"maxParallel": 2, "reviewer": {"model": "openai:m", "maxSteps": 3}}
    values["shell"]["timeoutSeconds"] = 30
    s = Settings(values)
    assert s.hooks.after_tool == [Hook(command="ruff check", match="edit*")]
    assert s.agents.max_parallel == 2 and s.agents.named["reviewer"].max_steps == 3
    assert s.shell.timeout_seconds == 30.0 and isinstance(s.shell.timeout_seconds, float)
    assert to_json(s.agents) == values["agents"]
    assert to_json(s.hooks)["afterTool"] == values["hooks"]["afterTool"]


def test_json_of_the_wrong_type_is_refused_not_guessed() -> None:
    with pytest.raises(TypeError, match="expected int"):
        from_json(int, "5")
    with pytest.raises(TypeError, match="expected one of"):
        from_json(DialectName, "xml")
