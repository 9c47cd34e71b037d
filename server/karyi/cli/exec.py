"""`karyi exec`: the protocol engine without a model.

It runs a reply's calls with the tools the agent would have: the profile's built-in
tools, plus those of `tools.discoveryCommand` and the `mcpServers` (started only when
the reply calls a tool that is not built in).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import IO, Any

from karyi.agent.frontend.startup import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    settings_for,
    toolkit_for,
    workspace_folders,
)
from karyi.agent.runtime import Runtime
from karyi.agent.tool_context import tool_context
from karyi.agent.turn.executor import Executed, run_calls
from karyi.cli.askers import terminal_askers
from karyi.cli.common import open_tty, with_runtime_tools
from karyi.core.collector import resume
from karyi.protocol import get_dialect
from karyi.protocol.calls import ToolCall, events_calls
from karyi.protocol.jsonscan import JsonSlip, loads_lenient
from karyi.protocol.native import NativeParser, parse_message
from karyi.settings import Settings
from karyi.tools.registry import Toolkit


def _read_reply(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {source}: {exc.strerror}") from None


def _parse(text: str, dialect_name: str, toolkit: Toolkit) -> list[ToolCall]:
    dialect = get_dialect(dialect_name)
    parser = dialect.parser(toolkit.schema)
    if isinstance(parser, NativeParser):
        try:
            message: Any = loads_lenient(text)
        except JsonSlip as exc:
            raise UsageError(
                f"a native reply must be JSON (tool calls or a message): {exc}"
            ) from None
        return events_calls(parse_message(parser, message))
    return events_calls(parser.parse(text))


def _json_result(item: Executed) -> dict[str, Any]:
    r = item.result
    return {
        "index": item.call.index,
        "id": item.call.id,
        "name": item.call.name,
        "success": r.success,
        "llm_content": r.llm_content,
        "error": {"code": r.error.code, "message": r.error.message} if r.error else None,
        "data": r.data,
    }


def cmd_exec(args: argparse.Namespace) -> int:
    """Parse a model reply and execute its calls."""
    root, *more = workspace_folders(args.workspace)
    settings = settings_for(root, args)
    toolkit = toolkit_for(settings)
    text = _read_reply(args.reply)
    calls = _parse(text, settings.dialect, toolkit)
    if not calls:
        print("karyi: no tool calls found in the reply", file=sys.stderr)
        if args.json:
            print("[]")
        return EXIT_OK
    tty = open_tty(args.reply == "-")
    executed = asyncio.run(
        _exec_calls(text, calls, toolkit, [root, *more], settings, tty, args.yes)
    )
    if args.json:
        print(json.dumps([_json_result(e) for e in executed], ensure_ascii=False, indent=2))
    else:
        print(get_dialect(settings.dialect).render_results([e.outcome() for e in executed]))
    return EXIT_OK if all(e.result.success for e in executed) else EXIT_FAILED


async def _exec_calls(
    text: str,
    calls: list[ToolCall],
    toolkit: Toolkit,
    folders: list[Path],
    settings: Settings,
    tty: IO[str] | None,
    yes: bool,
) -> list[Executed]:
    """Run the calls with a session's shell and vault; the shell and any MCP server are
    closed before return, so no process the calls started outlives `karyi exec`."""
    runtime = Runtime.open(folders[0], settings, folders[1:])
    try:
        if any(c.name not in toolkit for c in calls):
            toolkit = await with_runtime_tools(runtime, toolkit)
            calls = _parse(text, settings.dialect, toolkit)  # typed by their schemas
        askers = terminal_askers(tty, yes=yes)
        runtime.ask_value = askers.ask_value
        ctx = tool_context(runtime, "exec")
        resume()  # start-up is over (cli/subcommands.py paused the collector)
        return await run_calls(calls, toolkit, ctx, askers.approver)
    finally:
        await runtime.aclose()
