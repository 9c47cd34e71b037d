"""Waiting for a state that no event announces (a pid file written, a port opened, a
byte received): one bounded poll, so no test sleeps a fixed time and hopes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

PATIENCE = 60.0
"""Seconds before giving up: generous, a loaded machine is slow, never wrong."""
STEP = 0.01


async def eventually(found: Callable[[], T | None], what: str, patience: float = PATIENCE) -> T:
    """`found()`'s first truthy value, polled; AssertionError naming `what` past `patience`."""
    deadline = time.monotonic() + patience
    while True:
        value = found()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        await asyncio.sleep(STEP)


def eventually_sync(found: Callable[[], T | None], what: str, patience: float = PATIENCE) -> T:
    """`eventually` for code outside an event loop."""
    deadline = time.monotonic() + patience
    while True:
        value = found()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(STEP)


def pid_in(path: object) -> int | None:
    """The pid a command wrote to `path` (a `Path`), once it is whole."""
    from pathlib import Path

    file = Path(str(path))
    text = file.read_text().strip() if file.exists() else ""
    return int(text) if text.isdigit() else None
