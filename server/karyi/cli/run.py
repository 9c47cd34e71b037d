"""`karyi run`: one agent task in the terminal."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys

from rich.console import Console

from karyi.agent.approval import Approver, approve_all
from karyi.agent.events import EventStream
from karyi.agent.runtime import Runtime
from karyi.agent.sessions import SessionNotFound
from karyi.agent.startup import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    settings_for,
    toolkit_for,
    workspace_folders,
)
from karyi.cli.ask import TerminalApprover, TerminalValueAsker
from karyi.cli.common import open_tty
from karyi.cli.view import TerminalView
from karyi.llm.base import ProviderError


def _task_text(words: list[str]) -> str:
    text = sys.stdin.read() if words == ["-"] else " ".join(words)
    if not text.strip():
        raise UsageError('the task is empty: karyi run "what to do"')
    return text


async def _run_turn(runtime: Runtime, args: argparse.Namespace, text: str) -> int:
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    out = Console(highlight=False, soft_wrap=True)
    try:
        provider = runtime.provider()
    except ProviderError as exc:
        raise UsageError(exc.message) from None
    try:
        conversation = runtime.conversation(args.session)
    except SessionNotFound as exc:
        raise UsageError(str(exc)) from None
    events = EventStream()
    if args.json:
        events.subscribe(
            lambda e: print(json.dumps(e.to_dict(), ensure_ascii=False, default=str), flush=True)
        )
    else:
        events.subscribe(TerminalView(out, err, verbose=args.verbose))
        where = f"{provider.label} · {runtime.workspace.root} · session {conversation.id}"
        err.print(f"[dim]karyi · {where}[/dim]")
        for rule in runtime.rules(conversation.id):
            err.print(f"[dim]rules · {rule.path} ({rule.scope})[/dim]")
    tty = open_tty(False)
    lock = asyncio.Lock()
    approver: Approver = approve_all if args.yes else TerminalApprover(tty, err, lock=lock)
    runtime.ask_value = TerminalValueAsker(tty, lock) if tty is not None else None
    agent = runtime.agent(conversation, approver=approver, provider=provider, events=events)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.cancel)
    try:
        result = await agent.run(text)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await provider.aclose()
        await runtime.aclose()
    if result.stop_reason == "cancelled":
        return 130
    return EXIT_OK if result.stop_reason in ("end_turn", "final_answer") else EXIT_FAILED


def cmd_run(args: argparse.Namespace) -> int:
    """Run one agent task in the terminal."""
    root, *more = workspace_folders(args.workspace)
    settings = settings_for(root, args)
    toolkit_for(settings)  # an unknown profile is a usage error before anything starts
    text = _task_text(args.task)
    runtime = Runtime.open(root, settings, more)
    try:
        return asyncio.run(_run_turn(runtime, args, text))
    finally:
        runtime.close()
