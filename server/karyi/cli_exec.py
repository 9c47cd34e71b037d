"""`karyi exec` and `karyi tools`: the protocol engine without a model."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import IO, Any

from rich.console import Console

from karyi.agent.executor import Approver, Executed, approve_all, run_calls
from karyi.cli_common import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    open_tty,
    settings_for,
    toolkit_for,
    workspace_root,
)
from karyi.protocol import get_dialect
from karyi.protocol.calls import ToolCall, events_calls
from karyi.protocol.jsonscan import JsonSlip, loads_lenient
from karyi.protocol.native import NativeParser, parse_message
from karyi.secrets.redact import RedactingFilter
from karyi.secrets.store import SecretStore
from karyi.secrets.vault import Vault
from karyi.settings import Settings
from karyi.shell.manager import ShellManager
from karyi.terminal import TerminalApprover, TerminalValueAsker
from karyi.tools.base import ToolContext
from karyi.tools.prompt import declarations, tool_prompt
from karyi.tools.registry import Toolkit
from karyi.workspace.workspace import Workspace


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
    root = workspace_root(args.workspace)
    settings = settings_for(root, args)
    toolkit = toolkit_for(settings)
    text = _read_reply(args.reply)
    calls = _parse(text, settings.dialect, toolkit)
    if not calls:
        print("karyi: no tool calls found in the reply", file=sys.stderr)
        if args.json:
            print("[]")
        return EXIT_OK
    workspace = Workspace.open(root, settings.allowed_roots)
    tty = open_tty(args.reply == "-")
    executed = asyncio.run(_exec_calls(calls, toolkit, workspace, settings, tty, args.yes))
    if args.json:
        print(json.dumps([_json_result(e) for e in executed], ensure_ascii=False, indent=2))
    else:
        print(get_dialect(settings.dialect).render_results([e.outcome() for e in executed]))
    return EXIT_OK if all(e.result.success for e in executed) else EXIT_FAILED


async def _exec_calls(
    calls: list[ToolCall],
    toolkit: Toolkit,
    workspace: Workspace,
    settings: Settings,
    tty: IO[str] | None,
    yes: bool,
) -> list[Executed]:
    """Run the calls with a session's shell and vault; the shell is closed before return,
    so no process the calls started outlives `karyi exec`."""
    vault = Vault(SecretStore.default())
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactingFilter(lambda: vault.redactor))
    shell = ShellManager(workspace, settings, vault)
    lock = asyncio.Lock()
    ctx = ToolContext(
        workspace=workspace,
        settings=settings,
        session_id="exec",
        shell=shell,
        secrets=vault,
        ask_value=TerminalValueAsker(tty, lock) if tty is not None else None,
    )
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    approver: Approver = approve_all if yes else TerminalApprover(tty, err, lock=lock)
    try:
        return await run_calls(calls, toolkit, ctx, approver)
    finally:
        await shell.close()


def cmd_tools(args: argparse.Namespace) -> int:
    """Print the generated tool prompt (or the function declarations)."""
    root = workspace_root(args.workspace)
    settings = settings_for(root, args)
    toolkit = toolkit_for(settings)
    if args.json:
        print(json.dumps(declarations(toolkit), ensure_ascii=False, indent=2))
    else:
        print(tool_prompt(toolkit, settings.dialect), end="")
    return EXIT_OK
