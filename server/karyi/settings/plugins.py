"""Installed plugins: where they are, which are enabled, and what each one holds
(docs/extensions.md#plugins).

A plugin is a folder in Claude Code's layout, installed unchanged: a manifest
`.claude-plugin/plugin.json` (`name`, `version`, `description`; optional paths
`commands`, `agents`, `skills`, `hooks`, `mcpServers`), and by default `commands/*.md`,
`agents/*.md`, `skills/NAME/SKILL.md`, `hooks/hooks.json` and `.mcp.json`. A plugin is
installed for the user (`<user config dir>/karyi/plugins/NAME/`, every workspace) or
for one workspace (`<root>/.karyi/plugins/NAME/`); each scope's `installed.json` records
where it came from and whether it is enabled. A workspace's plugins come with the
repository, so they may only tighten, as its `.karyi/settings.json` (plugin_layer.py).

This module only reads; installing is `agent/frontend/plugins.py`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypedDict

from karyi.core.user_dir import karyi_config_dir

Scope = Literal["user", "workspace"]
SCOPES: tuple[Scope, ...] = ("user", "workspace")
MANIFEST = Path(".claude-plugin") / "plugin.json"
RECORDS = "installed.json"


class PluginJson(TypedDict):
    """An installed plugin as front ends list it (`karyi plugin list --json`, `karyi/tools`)."""

    name: str
    scope: str
    enabled: bool
    source: str
    version: str
    description: str
    path: str


@dataclass(frozen=True)
class Plugin:
    """One installed plugin."""

    name: str
    root: Path
    """Its files, as installed."""
    scope: Scope
    enabled: bool
    source: str
    """The path or git URL it was installed from (`NAME@MARKETPLACE` from a marketplace)."""
    version: str = ""
    description: str = ""

    @property
    def trusted(self) -> bool:
        """A plugin of the user's counts as their own settings; a workspace's may only
        tighten."""
        return self.scope == "user"

    def manifest(self) -> dict[str, Any]:
        """Its `.claude-plugin/plugin.json` ({} when it has none or it is unreadable)."""
        return read_manifest(self.root)

    def part_dirs(self, part: str) -> list[Path]:
        """The folders of `part` (`commands`, `agents`, `skills`): the default one, and
        the manifest's own paths (a string or a list, relative to the plugin)."""
        extra = self.manifest().get(part)
        paths = [extra] if isinstance(extra, str) else extra if isinstance(extra, list) else []
        found = []
        for rel in [part, *paths]:  # a symbolic link out of the plugin is not followed
            if isinstance(rel, str) and (path := inside(self.root, rel)) is not None:
                found.append(path)
        return [p for p in dict.fromkeys(found) if p.is_dir()]

    def to_json(self) -> PluginJson:
        """The form `karyi plugin list --json` and the editors show."""
        return {
            "name": self.name,
            "scope": self.scope,
            "enabled": self.enabled,
            "source": self.source,
            "version": self.version,
            "description": self.description,
            "path": str(self.root),
        }


def inside(root: Path, rel: str) -> Path | None:
    """`rel` under `root`, or None when it leads out of it (a plugin reads only itself)."""
    path = (root / rel).resolve()
    base = root.resolve()
    return path if path == base or base in path.parents else None


def read_manifest(root: Path) -> dict[str, Any]:
    """A plugin folder's manifest ({} when missing or not a JSON object)."""
    try:
        data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def plugins_dir(scope: Scope, root: Path | None, env: Mapping[str, str] | None = None) -> Path:
    """Where a scope's plugins are installed."""
    if scope == "user":
        return karyi_config_dir(env) / "plugins"
    if root is None:
        raise ValueError("a workspace plugin needs a workspace")
    return root / ".karyi" / "plugins"


def read_records(folder: Path) -> dict[str, dict[str, Any]]:
    """A scope's `installed.json`: plugin name -> its record ({} when none)."""
    try:
        data = json.loads((folder / RECORDS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(plugins, dict):
        return {}
    return {k: v for k, v in plugins.items() if isinstance(k, str) and isinstance(v, dict)}


def installed(root: Path | None, env: Mapping[str, str] | None = None) -> list[Plugin]:
    """Every installed plugin, the user's first; a workspace plugin of the same name as a
    user's is left out (the user's wins, as with skills and commands)."""
    out: list[Plugin] = []
    for scope in SCOPES:
        if scope == "workspace" and root is None:
            continue
        folder = plugins_dir(scope, root, env)
        for name, record in sorted(read_records(folder).items()):
            path = folder / name
            if any(p.name == name for p in out) or not path.is_dir():
                continue
            out.append(
                Plugin(
                    name,
                    path,
                    scope,
                    record.get("enabled", True) is not False,
                    str(record.get("source", "")),
                    str(record.get("version", "")),
                    str(record.get("description", "")),
                )
            )
    return out


def enabled_plugins(root: Path | None, env: Mapping[str, str] | None = None) -> list[Plugin]:
    """The installed plugins that are enabled."""
    return [p for p in installed(root, env) if p.enabled]
