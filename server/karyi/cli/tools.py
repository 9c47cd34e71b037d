"""`karyi tools`: the tool instructions a model gets, for a dialect and a profile.

It shows the tools the agent would have: the profile's built-in tools, plus those of
`tools.discoveryCommand` and the `mcpServers` unless `--builtin` says not to start them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from karyi.agent.frontend.startup import EXIT_OK, settings_for, toolkit_for, workspace_root
from karyi.agent.runtime import Runtime
from karyi.cli.common import with_runtime_tools
from karyi.settings import Settings
from karyi.tools.prompt import declarations, tool_prompt
from karyi.tools.registry import Toolkit


async def _tools_of(root: Path, settings: Settings, toolkit: Toolkit) -> Toolkit:
    """`toolkit` plus the run-time tools of a runtime opened and closed for this."""
    runtime = Runtime.open(root, settings)
    try:
        return await with_runtime_tools(runtime, toolkit)
    finally:
        await runtime.aclose()


def cmd_tools(args: argparse.Namespace) -> int:
    """Print the generated tool prompt (or the function declarations)."""
    root = workspace_root(args.workspace)
    settings = settings_for(root, args)
    toolkit = toolkit_for(settings)
    if not args.builtin and settings.has_runtime_tools:
        toolkit = asyncio.run(_tools_of(root, settings, toolkit))
    if args.json:
        print(json.dumps(declarations(toolkit), ensure_ascii=False, indent=2))
    else:
        print(tool_prompt(toolkit, settings.dialect), end="")
    return EXIT_OK
