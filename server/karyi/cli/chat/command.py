"""`karyi chat [--session ID]`, and `karyi` alone on a terminal: open the full-screen chat.

Without a terminal there is nothing to draw on: `karyi chat` says so and `karyi` alone
prints the usage, as it always has. With one, the screen comes first (only Textual and
the chat's shell are loaded for it); the settings, the runtime and the rest of the
agent load right after, in a thread, and what is typed meanwhile waits for them
(docs/terminal.md#speed).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from karyi.agent.frontend.startup import EXIT_OK, UsageError, workspace_folders

if TYPE_CHECKING:
    from karyi.agent.runtime import Runtime


def on_a_terminal() -> bool:
    """Whether the chat can draw and read keys: stdin and stdout are both terminals."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def cmd_chat(args: argparse.Namespace) -> int:
    """Open the chat in the workspace, on a new session or `--session ID`."""
    if not on_a_terminal():
        raise UsageError("karyi chat needs a terminal; for one task without it: karyi run TASK")
    workspace_folders(getattr(args, "workspace", None))  # a missing folder: before the screen
    from karyi.cli.chat.app import ChatApp

    opened: list[Runtime] = []
    app = ChatApp(lambda: _open(args, opened), getattr(args, "session", None))
    try:
        code = app.run()
    finally:
        for runtime in opened:
            runtime.close()
    if app.failure is not None:
        raise app.failure
    return EXIT_OK if code is None else int(code)


def _open(args: argparse.Namespace, opened: list[Runtime]) -> Runtime:
    """The settings, the toolkit and the runtime (run in the chat's opening thread); an
    unknown profile or session is a usage error, which ends the chat."""
    from karyi.agent.frontend.startup import settings_for, toolkit_for
    from karyi.agent.runtime import Runtime
    from karyi.agent.session.store import SessionNotFound
    from karyi.core.collector import resume

    root, *more = workspace_folders(getattr(args, "workspace", None))
    settings = settings_for(root, args)
    toolkit_for(settings)
    runtime = Runtime.open(root, settings, more)
    opened.append(runtime)
    session = getattr(args, "session", None)
    if session:
        try:
            runtime.store.require(session)
        except SessionNotFound as exc:
            raise UsageError(str(exc)) from None
    resume()  # start-up is over: collect as usual (core/collector.py)
    return runtime
