"""`karyi chat [--session ID]`, and `karyi` alone on a terminal: open the full-screen chat.

Without a terminal there is nothing to draw on: `karyi chat` says so and `karyi` alone
prints the usage, as it always has.
"""

from __future__ import annotations

import argparse
import sys

from karyi.agent.frontend.startup import (
    EXIT_OK,
    UsageError,
    settings_for,
    toolkit_for,
    workspace_folders,
)
from karyi.agent.runtime import Runtime
from karyi.agent.session.store import SessionNotFound
from karyi.core.collector import resume


def on_a_terminal() -> bool:
    """Whether the chat can draw and read keys: stdin and stdout are both terminals."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def cmd_chat(args: argparse.Namespace) -> int:
    """Open the chat in the workspace, on a new session or `--session ID`."""
    if not on_a_terminal():
        raise UsageError("karyi chat needs a terminal; for one task without it: karyi run TASK")
    root, *more = workspace_folders(getattr(args, "workspace", None))
    settings = settings_for(root, args)
    toolkit_for(settings)  # an unknown profile is a usage error before the screen opens
    runtime = Runtime.open(root, settings, more)
    session = getattr(args, "session", None)
    try:
        if session:
            runtime.store.require(session)
        from karyi.cli.chat.app import ChatApp

        resume()  # start-up is over: collect as usual (core/collector.py)
        app = ChatApp(runtime, session)
        code = app.run()
    except SessionNotFound as exc:
        raise UsageError(str(exc)) from None
    finally:
        runtime.close()
    return EXIT_OK if code is None else int(code)
