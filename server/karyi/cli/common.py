"""What the terminal commands share beyond the startup in `karyi.agent.startup`."""

from __future__ import annotations

import sys
from typing import IO


def open_tty(stdin_used: bool) -> IO[str] | None:
    """The terminal to ask the user on: stdin when it is a terminal the command does not
    read its input from, else `/dev/tty`; None when there is no terminal."""
    if not stdin_used and sys.stdin.isatty():
        return sys.stdin
    try:
        return open("/dev/tty", encoding="utf-8")
    except OSError:
        return None
