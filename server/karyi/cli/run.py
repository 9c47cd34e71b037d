"""`karyi run`: one agent task in the terminal."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

from rich.console import Console

from karyi.agent.events import (
    Error,
    Event,
    EventStream,
    Text,
    ToolPending,
    TurnFinished,
    Usage,
)
from karyi.agent.frontend.startup import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    settings_for,
    toolkit_for,
    workspace_folders,
)
from karyi.agent.prompting.modes import EMPTY_ASK, PLAN
from karyi.agent.runtime import Runtime
from karyi.agent.session.store import SessionNotFound
from karyi.agent.turn.loop import Agent
from karyi.cli.askers import terminal_askers
from karyi.cli.common import open_tty
from karyi.cli.view import TerminalView
from karyi.core.collector import resume
from karyi.core.images import Image, ImageError, checked_count, image_from_file
from karyi.llm.base import ProviderError


def _task_text(words: list[str]) -> str:
    text = sys.stdin.read() if words == ["-"] else " ".join(words)
    if not text.strip():
        raise UsageError('the task is empty: karyi run "what to do"')
    return text


def _images(files: list[str]) -> tuple[Image, ...]:
    """The `--image` files, checked (a bad one is a usage error naming it)."""
    try:
        return checked_count([image_from_file(Path(f).expanduser()) for f in files])
    except ImageError as exc:
        raise UsageError(f"--image: {exc}") from None


async def _run_turn(
    runtime: Runtime, args: argparse.Namespace, text: str, images: tuple[Image, ...] = ()
) -> int:
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    out = Console(highlight=False, soft_wrap=True)
    try:
        provider = runtime.provider()
    except ProviderError as exc:
        raise UsageError(exc.message) from None
    if args.rewind is not None and not args.session:
        raise UsageError("--rewind N needs --session ID: the session to take back")
    try:
        conversation = runtime.conversation(args.session)
    except SessionNotFound as exc:
        raise UsageError(str(exc)) from None
    events = EventStream()
    events.subscribe(_resume_when_answered)
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
    askers = terminal_askers(tty, yes=args.yes, err=err)
    runtime.ask_value = askers.ask_value
    agent = runtime.agent(conversation, approver=askers.approver, provider=provider, events=events)
    if args.session:
        from karyi.agent.turn.timeline import transcript_of
        from karyi.cli.past import print_past_turns, rewind_first

        if args.rewind is not None:
            await rewind_first(err, agent, args.rewind, args.rewind_only or "both")
        if not args.json:
            print_past_turns(err, transcript_of(agent))
    if args.mode:
        agent.set_mode(args.mode)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.cancel)
    try:
        result = await agent.run(text, images=images)
        while agent.mode == PLAN and result.stop_reason in ("end_turn", "final_answer"):
            follow = await _next_in_plan(tty, err, agent) if not args.json else None
            if follow is None:
                break
            result = await agent.run(follow)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await provider.aclose()
        await runtime.aclose()
    if result.stop_reason == "cancelled":
        return 130
    return EXIT_OK if result.stop_reason in ("end_turn", "final_answer") else EXIT_FAILED


ANSWERED = (Text, ToolPending, Usage, Error, TurnFinished)
"""Events that say the first model request went out: start-up is over."""


def _resume_when_answered(event: Event) -> None:
    """Collect again once the model answers (cli/subcommands.py paused the collector so
    that the first request goes out sooner; core/collector.py)."""
    if isinstance(event, ANSWERED):
        resume()


PLAN_PROMPT = "Plan ready. /act carries it out, /edit edits it first, text asks more; Enter ends: "


async def _next_in_plan(tty: IO[str] | None, err: Console, agent: Agent) -> str | None:
    """After a plan turn on a terminal: the user's next message (`/act`, `/plan`, or more
    questions), or None to stop. `/edit` opens the plan in $VISUAL/$EDITOR and acts on
    the edited plan (docs/workflow.md#plan-mode)."""
    if tty is None:
        return None
    err.print(PLAN_PROMPT, end="")
    line = (await asyncio.to_thread(tty.readline)).strip()
    if not line:
        return None
    if line != "/edit":
        return line
    edited = await asyncio.to_thread(_edit, agent.conversation.plan)
    if edited is None:
        err.print(
            "[yellow]no $VISUAL or $EDITOR to edit with: acting on the plan as it is[/yellow]"
        )
    agent.set_mode("act", plan=edited)
    return EMPTY_ASK["act"]


def _edit(text: str) -> str | None:
    """`text` as the user left it in their editor; None when there is none."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        return None
    with tempfile.NamedTemporaryFile("w+", suffix=".md", delete=False, encoding="utf-8") as f:
        f.write(text)
        path = f.name
    try:
        subprocess.run([*shlex.split(editor), path], check=False)
        return Path(path).read_text(encoding="utf-8")
    finally:
        os.unlink(path)


def cmd_run(args: argparse.Namespace) -> int:
    """Run one agent task in the terminal."""
    root, *more = workspace_folders(args.workspace)
    settings = settings_for(root, args)
    toolkit_for(settings)  # an unknown profile is a usage error before anything starts
    text = _task_text(args.task)
    if text.strip() == "/memory":  # shown, not asked of the model (docs/extensions.md#memory)
        from karyi.agent.prompting.memory_view import memory_files, memory_text

        print(memory_text(memory_files([root, *more], settings)))
        return EXIT_OK
    images = _images(args.image)
    runtime = Runtime.open(root, settings, more)
    try:
        return asyncio.run(_run_turn(runtime, args, text, images))
    finally:
        runtime.close()
