"""The `contributes.configuration` of client-vscode/package.json, from the settings model.

VS Code's settings UI shows the keys whose field in model.py carries `editor` metadata,
typed as the model types them, plus the extension's own keys (`ServerLaunch`). The
editor's default is its own (null, or empty: Karyi's settings files decide), so such a
key becomes nullable there. `make protocol` writes the result into package.json
(`python -m karyi.settings.editor_schema PACKAGE_JSON`); a test keeps it current.
"""

from __future__ import annotations

import json
import sys
import typing
from pathlib import Path
from typing import Any

import attrs

from karyi.core.typed_schema import camel, value_schema
from karyi.settings.model import SettingsModel

JSON = dict[str, Any]
_FIRST = ("items", "additionalProperties")
_NOT_COPIED = ("type", "enum", "description", "properties", "required")


@attrs.frozen(kw_only=True)
class ServerLaunch:
    """`karyi.server.*`: how the extension starts the server (the extension's own keys,
    never sent to the server)."""

    command: str = attrs.field(
        default="karyi",
        metadata={
            "editor": {
                "default": "karyi",
                "scope": "machine",
                "markdownDescription": "The Karyi server executable. Left at `karyi`, the "
                "extension uses the server it brings (set up on first start with a Python "
                "3.11+ of the machine); an extension built without it (development) looks up "
                "`karyi` on `PATH`, then in the `.venv` of the Karyi checkout it runs from, "
                "then in each workspace folder's `.venv/bin/karyi`. Any other value is used as "
                "given, and overrides the bundled server; `~` and `${workspaceFolder}` are "
                "expanded.",
            }
        },
    )
    args: list[str] = attrs.field(
        factory=lambda: ["lsp", "--stdio"],
        metadata={
            "editor": {
                "default": ["lsp", "--stdio"],
                "scope": "machine",
                "description": "Arguments for the server command.",
            }
        },
    )
    env: dict[str, str] = attrs.field(
        factory=dict,
        metadata={
            "editor": {
                "default": {},
                "scope": "machine",
                "markdownDescription": "Extra environment variables for the server process "
                "(for example `OPENAI_API_KEY` from elsewhere). Prefer **Karyi: Set API Key**, "
                "which keeps the key in VS Code's secret storage.",
            }
        },
    )


def editor_entry(field: attrs.Attribute[Any], hint: Any) -> JSON:
    """One key as VS Code's settings UI shows it (the field's `editor` metadata)."""
    editor: JSON = field.metadata["editor"]
    base = value_schema(hint, {k: v for k, v in field.metadata.items() if k != "editor"})
    nullable = editor["default"] is None
    kind = base["type"]
    if nullable and not isinstance(kind, list):
        kind = [kind, "null"]
    out: JSON = {"type": kind}
    if not editor.get("shallow"):
        out.update({k: base[k] for k in _FIRST if k in base})
    out["default"] = editor["default"]
    enum = editor.get("enum", base.get("enum"))
    if enum is not None:
        out["enum"] = [None, *enum] if nullable else list(enum)
    for key in ("enumDescriptions", "scope"):
        if key in editor:
            out[key] = editor[key]
    if not editor.get("shallow"):
        out.update({k: v for k, v in base.items() if k not in out and k not in _NOT_COPIED})
    for key in ("description", "markdownDescription"):
        if key in editor:
            out[key] = editor[key]
    return out


def _entries(cls: type, prefix: str) -> JSON:
    hints = typing.get_type_hints(cls)
    return {
        prefix + camel(f.name): editor_entry(f, hints[f.name])
        for f in attrs.fields(cls)
        if "editor" in f.metadata
    }


def configuration() -> JSON:
    """The whole `contributes.configuration` object."""
    properties = {**_entries(ServerLaunch, "karyi.server."), **_entries(SettingsModel, "karyi.")}
    return {"title": "Karyi", "properties": properties}


def with_configuration(package_json: str) -> str:
    """`package_json`'s text with its `contributes.configuration` regenerated."""
    package = json.loads(package_json)
    package["contributes"]["configuration"] = configuration()
    return json.dumps(package, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    target = Path(sys.argv[1])
    target.write_text(with_configuration(target.read_text()))
