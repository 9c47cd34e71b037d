"""`karyi plugin add|list|remove|enable|disable` and `karyi plugin marketplace
add|list|remove` (docs/extensions.md#plugins).

Installing or enabling a plugin, or adding a marketplace, is refused inside a shell the
agent started (`KARYI_AGENT_SHELL`), as `karyi var` is: a user's plugin may bring hooks
and MCP servers, programs that run with the user's rights, so the model must not be
able to install one for itself.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from karyi.agent.frontend.plugins import (
    PluginError,
    add_marketplace,
    add_plugin,
    marketplaces,
    remove_marketplace,
    remove_plugin,
    set_enabled,
)
from karyi.agent.frontend.startup import EXIT_FAILED, EXIT_OK, EXIT_USAGE, workspace_root
from karyi.settings.plugins import installed

LOOSENING = ("add", "enable", "marketplace")


def _err(message: str) -> None:
    print(f"karyi plugin: {message}", file=sys.stderr)


def cmd_plugin(args: argparse.Namespace) -> int:
    """Dispatch `karyi plugin ACTION`."""
    action = args.action
    if action in LOOSENING and os.environ.get("KARYI_AGENT_SHELL"):
        _err(f"`karyi plugin {action}` is not available inside a shell the agent runs")
        return EXIT_USAGE
    root = workspace_root(getattr(args, "workspace", None))
    scope = getattr(args, "scope", None)
    try:
        if action == "add":
            plugin = add_plugin(args.source, scope or "user", root)
            print(f"installed {plugin.name} {plugin.version} ({plugin.scope}) in {plugin.root}")
        elif action == "list":
            return _list(root, args.json)
        elif action == "remove":
            plugin = remove_plugin(args.name, scope, root)
            print(f"removed {plugin.name} ({plugin.scope})")
        elif action in ("enable", "disable"):
            plugin = set_enabled(args.name, action == "enable", scope, root)
            print(f"{action}d {plugin.name} ({plugin.scope})")
        else:
            return _marketplace(args)
    except PluginError as exc:
        _err(str(exc))
        return EXIT_FAILED
    return EXIT_OK


def _list(root: Path, as_json: bool) -> int:
    plugins = installed(root)
    if as_json:
        print(json.dumps([p.to_json() for p in plugins], indent=2))
        return EXIT_OK
    if not plugins:
        print("(no plugins)")
    for p in plugins:
        state = "enabled" if p.enabled else "disabled"
        print(f"{p.name} {p.version}  [{p.scope}, {state}]  {p.description}".rstrip())
    return EXIT_OK


def _marketplace(args: argparse.Namespace) -> int:
    action = args.market_action
    if action == "add":
        name = add_marketplace(args.source)
        listed = marketplaces()[name]["plugins"]
        print(
            f"added marketplace {name} ({len(listed)} plugins): install one with "
            f"karyi plugin add NAME@{name}"
        )
    elif action == "remove":
        remove_marketplace(args.name)
        print(f"removed marketplace {args.name}")
    else:
        found = marketplaces()
        if args.json:
            print(json.dumps(found, indent=2))
            return EXIT_OK
        for name, market in found.items():
            print(f"{name}  ({market['source']})")
            for entry in market["plugins"]:
                print(f"  {entry['name']}@{name}  {entry.get('description', '')}".rstrip())
        if not found:
            print("(no marketplaces)")
    return EXIT_OK
