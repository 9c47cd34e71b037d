"""The settings as one typed model: `SettingsModel`, the one source of the settings.

From it come the JSON Schema each layer is checked against key by key (`SCHEMA`, with
core/typed_schema.py), the defaults every layer starts from (`DEFAULTS`), the typed
values the code reads (`Settings` is a `SettingsModel`, accessors.py), the
`contributes.configuration` of client-vscode/package.json (editor_schema.py, from the
`editor` metadata here) and the table of docs/settings.md (reference.py). The objects
are in sections.py. README.md ("Settings") and the docs it links explain the keys.
"""

from __future__ import annotations

import typing
from typing import Any

import attrs

from karyi.core.typed_json import to_json
from karyi.core.typed_schema import camel, value_schema
from karyi.settings.language_servers import Diagnostics, Navigation
from karyi.settings.sections import (
    MODEL_PATTERN,
    Agents,
    CostLimit,
    DialectName,
    Gateway,
    Hooks,
    Llm,
    Memory,
    ModelPrice,
    Permissions,
    Shell,
    ToolCommands,
    Web,
)
from karyi.settings.telemetry import Telemetry

_DIALECT_NOTES = [
    "Karyi's setting files decide (default toolsxml)",
    "KaryiAgent ToolsXML v1.0",
    "JSON-in-XML",
    "CDATA tool calls",
    "the provider's function calling",
]


@attrs.frozen(kw_only=True)
class SettingsModel:
    """Every settings key with its type, constraints, default and description.

    A field's `editor` metadata puts the key in VS Code's settings UI (editor_schema.py):
    the editor's own default (null: Karyi's settings files decide), `scope`, the text the
    user reads there, and `shallow` to offer the key without its inner schema.
    """

    model: str = attrs.field(
        default="openai:gpt-4.1",
        metadata={
            "pattern": MODEL_PATTERN,
            "description": "provider:name, e.g. openai:gpt-4.1 or script:examples/demo/fix.yaml",
            "editor": {
                "default": "",
                "shallow": True,
                "markdownDescription": "The model as `provider:name`, e.g. `openai:gpt-4.1`, "
                "`anthropic:claude-sonnet-4-5`. Empty: Karyi's own settings files decide "
                "(default `openai:gpt-4.1`).",
            },
        },
    )
    models: list[str] = attrs.field(
        factory=list,
        metadata={
            "items": {"pattern": MODEL_PATTERN},
            "description": "models the editor's model picker offers besides `model` "
            "(provider:name)",
            "editor": {
                "default": [],
                "markdownDescription": "More models the chat header's model picker offers "
                "besides `karyi.model` (`provider:name`); an OpenAI-compatible server's own "
                "list is added. See docs/models.md.",
            },
        },
    )
    base_url: str | None = attrs.field(
        default=None,
        metadata={
            "description": "the provider's base URL",
            "editor": {
                "default": None,
                "scope": "application",
                "markdownDescription": "The API base URL of an OpenAI- or Anthropic-compatible "
                "server. User settings only: a workspace cannot choose where your key is sent.",
            },
        },
    )
    api_key_env: str | None = attrs.field(
        default=None,
        metadata={
            "description": "variable that holds the API key",
            "editor": {
                "default": None,
                "scope": "application",
                "description": "The environment variable that holds the API key "
                "(user settings only).",
            },
        },
    )
    dialect: DialectName = attrs.field(
        default="toolsxml",
        metadata={
            "description": "how the model writes tool calls (docs/protocol.md)",
            "editor": {
                "default": None,
                "enumDescriptions": _DIALECT_NOTES,
                "description": "How the model writes tool calls.",
            },
        },
    )
    profile: str = attrs.field(
        default="karyi",
        metadata={
            "description": "tool profile name",
            "editor": {
                "default": None,
                "enum": ["karyi", "agentxml", "research", "vecli", "gateway"],
                "description": "The tool profile of the agent.",
            },
        },
    )
    agents: Agents = attrs.Factory(Agents)
    permissions: Permissions = attrs.field(
        factory=Permissions,
        metadata={
            "editor": {
                "default": {},
                "shallow": True,
                "markdownDescription": 'Permissions: `{"tools": {"write": "confirm", '
                '"run_command": "confirm", "read": "auto"}, "commands": {"allow": '
                '["pytest*"], "deny": ["rm -rf*"], "confirm": []}}` \u2014 per tool `auto`, '
                "`confirm` or `deny`; shell command rules.",
            },
        },
    )
    mcp_servers: dict[str, dict[str, Any]] = attrs.field(
        factory=dict,
        metadata={
            "description": "servers checked one by one when they start (see tools/mcp/config.py)"
        },
    )
    tools: ToolCommands = attrs.Factory(ToolCommands)
    trusted_workspaces: list[str] = attrs.field(
        factory=list,
        metadata={"description": "workspaces whose settings file may start programs"},
    )
    web: Web = attrs.Factory(Web)
    allowed_roots: list[str] = attrs.field(
        factory=list,
        metadata={"description": "directories outside the workspace the agent may use"},
    )
    diagnostics: Diagnostics = attrs.Factory(Diagnostics)
    navigation: Navigation = attrs.Factory(Navigation)
    max_steps: int = attrs.field(
        default=50,
        metadata={
            "minimum": 1,
            "description": "the most model calls one turn may make",
            "editor": {"default": None, "description": "The most model calls one turn may make."},
        },
    )
    hooks: Hooks = attrs.field(
        factory=Hooks,
        metadata={
            "description": "commands run around the agent (docs/workflow.md#hooks); "
            "user settings only"
        },
    )
    prices: dict[str, ModelPrice] = attrs.field(
        factory=dict,
        metadata={"description": "USD per million tokens by model (docs/workflow.md#cost)"},
    )
    agent: CostLimit = attrs.Factory(CostLimit)
    memory: Memory = attrs.Factory(Memory)
    shell: Shell = attrs.Factory(Shell)
    gateway: Gateway = attrs.Factory(Gateway)
    llm: Llm = attrs.Factory(Llm)
    telemetry: Telemetry = attrs.Factory(Telemetry)


def _key_schema(field: attrs.Attribute[Any], hint: Any) -> dict[str, Any]:
    meta = {k: v for k, v in field.metadata.items() if k != "editor"}
    return value_schema(hint, meta)


_HINTS = typing.get_type_hints(SettingsModel)

SCHEMA: dict[str, dict[str, Any]] = {
    camel(f.name): _key_schema(f, _HINTS[f.name]) for f in attrs.fields(SettingsModel)
}
"""The JSON Schema of each top-level key, checked on its own (validation.py)."""

DEFAULTS: dict[str, Any] = to_json(SettingsModel())
"""The settings before any layer: every key at its default."""
