"""What an enabled plugin adds to the settings: its MCP servers, hooks and subagents,
translated from Claude Code's files into Karyi's keys (docs/extensions.md#plugins).

So a plugin's parts run through the machinery the user's own settings use (the MCP
manager, the hooks, the subagents) under the same trust rules: a user's plugin is a
layer like the user's file; a workspace's plugin like the workspace's file, which may
only tighten (no hooks ever, no MCP servers unless the workspace is trusted). A layer
only adds: where the user's own settings already say something, they win.

- `.mcp.json` (or the manifest's `mcpServers`, a path or an object): each server is
  `PLUGIN:SERVER` in `mcpServers`, started in the plugin's folder;
- `hooks/hooks.json` (or the manifest's `hooks`): `PreToolUse` -> `beforeTool`,
  `PostToolUse` -> `afterTool`, `UserPromptSubmit` -> `userPrompt`, `Stop` ->
  `turnEnd`; a `matcher` of Claude Code's tool names matches Karyi's tools that do the
  same job;
- `agents/*.md`: each becomes agent `PLUGIN:NAME` (its body the instructions, its
  `tools` mapped to Karyi's);
- `settings.json` at the plugin's root: Karyi settings, checked as any layer.

`${CLAUDE_PLUGIN_ROOT}` in a command, argument, environment value or URL is the
plugin's folder.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from karyi.core.claude_names import CLAUDE_AGENT_TOOLS, karyi_names
from karyi.core.front_matter import FrontMatterError, front_matter
from karyi.settings.plugins import Plugin, inside

ROOT_VAR = "${CLAUDE_PLUGIN_ROOT}"
HOOK_EVENTS = {
    "PreToolUse": "beforeTool",
    "PostToolUse": "afterTool",
    "UserPromptSubmit": "userPrompt",
    "Stop": "turnEnd",
}
DEFAULT_HOOK_SECONDS = 60.0


def _json_part(plugin: Plugin, key: str, default: str) -> Any:
    """The manifest's inline object for `key`, else the JSON file it names, else the
    default file (None when there is none)."""
    value = plugin.manifest().get(key)
    if isinstance(value, dict):
        return value
    rel = value if isinstance(value, str) else default
    path = inside(plugin.root, rel)
    if path is None or not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not JSON: {exc}") from None


def _rooted(value: Any, root: Path, quote: bool = False) -> Any:
    """`value` with `${CLAUDE_PLUGIN_ROOT}` replaced, in strings, lists and objects."""
    if isinstance(value, str):
        return value.replace(ROOT_VAR, shlex.quote(str(root)) if quote else str(root))
    if isinstance(value, list):
        return [_rooted(v, root, quote) for v in value]
    if isinstance(value, dict):
        return {k: _rooted(v, root, quote) for k, v in value.items()}
    return value


def mcp_servers(plugin: Plugin) -> dict[str, Any]:
    """The plugin's MCP servers under `PLUGIN:SERVER`, started in its folder."""
    data = _json_part(plugin, "mcpServers", ".mcp.json")
    if not isinstance(data, dict):
        return {}
    servers = data.get("mcpServers", data)
    out: dict[str, Any] = {}
    for name, spec in servers.items() if isinstance(servers, dict) else ():
        if isinstance(spec, dict):
            spec = _rooted(spec, plugin.root)
            if "command" in spec:
                spec.setdefault("cwd", str(plugin.root))
            out[f"{plugin.name}:{name}"] = spec
    return out


def _matches(matcher: Any) -> list[str]:
    """A Claude Code `matcher` (tool names joined by `|`, `*` or empty for all) as the
    globs of Karyi's tool names."""
    if not isinstance(matcher, str) or matcher.strip() in ("", "*", ".*"):
        return ["*"]
    out: list[str] = []
    for name in re.split(r"\s*\|\s*", matcher.strip()):
        out += karyi_names(name) if re.fullmatch(r"[\w.-]+", name) else [name]
    return list(dict.fromkeys(out))


def hooks(plugin: Plugin, warnings: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The plugin's hooks in Karyi's form; a kind Karyi does not run is a warning."""
    data = _json_part(plugin, "hooks", "hooks/hooks.json")
    by_event = data.get("hooks", data) if isinstance(data, dict) else {}
    out: dict[str, list[dict[str, Any]]] = {}
    for event, groups in by_event.items() if isinstance(by_event, dict) else ():
        ours = HOOK_EVENTS.get(event)
        if ours is None:
            warnings.append(f"plugin {plugin.name}: hook event {event} is not supported")
            continue
        for group in groups if isinstance(groups, list) else ():
            if not isinstance(group, dict):
                continue
            for hook in group.get("hooks") or ():
                if not isinstance(hook, dict) or hook.get("type", "command") != "command":
                    kind = hook.get("type") if isinstance(hook, dict) else hook
                    warnings.append(f"plugin {plugin.name}: {kind} hooks are not supported")
                    continue
                command = _rooted(str(hook.get("command", "")), plugin.root, quote=True)
                seconds = float(hook.get("timeout") or DEFAULT_HOOK_SECONDS)
                for match in _matches(group.get("matcher")) if ours.endswith("Tool") else ["*"]:
                    entry = {"command": command, "timeout": seconds}
                    out.setdefault(ours, []).append(
                        entry
                        if ours not in ("beforeTool", "afterTool")
                        else {**entry, "match": match}
                    )
    return out


def _agent_tools(value: Any) -> list[str]:
    names = re.split(r"[,\s]+", value) if isinstance(value, str) else value
    if not isinstance(names, list):
        return []
    refs: list[str] = []
    for name in names:
        if isinstance(name, str) and name.strip():
            refs += CLAUDE_AGENT_TOOLS.get(name.strip().lower(), ())
    return list(dict.fromkeys(refs))


def agents(plugin: Plugin, warnings: list[str]) -> dict[str, Any]:
    """The plugin's agents as settings `agents` entries named `PLUGIN:NAME`."""
    out: dict[str, Any] = {}
    for folder in plugin.part_dirs("agents"):
        for path in sorted(folder.glob("*.md")):
            try:
                meta, body = front_matter(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, FrontMatterError) as exc:
                warnings.append(f"{path}: skipped: {exc}")
                continue
            name = str(meta.get("name") or path.stem).strip()
            entry: dict[str, Any] = {
                "description": str(meta.get("description") or ""),
                "instructions": body.strip() or f"You are {name}.",
            }
            tools = _agent_tools(meta.get("tools"))
            entry.update({"tools": tools} if tools else {"profile": "karyi"})
            out[f"{plugin.name}:{name}"] = entry
    return out


def plugin_layer(plugin: Plugin) -> tuple[dict[str, Any], list[str]]:
    """The settings layer of one enabled plugin, and warnings about parts left out."""
    warnings: list[str] = []
    layer: dict[str, Any] = {}
    path = plugin.root / "settings.json"
    if path.is_file():
        try:
            own = json.loads(path.read_text(encoding="utf-8"))
            layer = own if isinstance(own, dict) else {}
        except (OSError, ValueError) as exc:
            warnings.append(f"{path}: ignored: {exc}")
    parts = (("mcpServers", mcp_servers), ("hooks", lambda p: hooks(p, warnings)))
    for key, read in (*parts, ("agents", lambda p: agents(p, warnings))):
        try:
            found = read(plugin)
        except ValueError as exc:
            warnings.append(str(exc))
            continue
        if found:
            layer[key] = {**(layer.get(key) or {}), **found}
    return layer, warnings
