"""Who asks the user on a terminal, for `karyi run` and `karyi exec` alike: the tool
calls' approvals (`--yes` approves them all) and the secret values a call needs (only
with a terminal), one question at a time.

The questions themselves are `cli/ask.py`'s; it (with rich's prompts) is imported only
when a question can be asked, so `karyi exec --yes` without a terminal loads neither
(docs/architecture.md#start-up).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from karyi.agent.review.approval import Approver, approve_all

if TYPE_CHECKING:
    from rich.console import Console

    from karyi.secrets.request import ValueAnswer, ValueRequest

ValueAsker = Callable[["ValueRequest"], Awaitable["ValueAnswer | None"]]


@dataclass(frozen=True)
class TerminalAskers:
    """The approver of a run's tool calls and the asker of its secret values (None: no
    terminal to read one from), sharing one lock so questions never interleave."""

    approver: Approver
    ask_value: ValueAsker | None


def terminal_askers(
    tty: IO[str] | None, *, yes: bool, err: Console | None = None
) -> TerminalAskers:
    """The askers for a run on `tty` (None: no terminal), writing to `err` (stderr by
    default); `yes` approves every call without asking."""
    lock = asyncio.Lock()
    ask_value: ValueAsker | None = None
    if tty is not None:
        from karyi.cli.ask import TerminalValueAsker

        ask_value = TerminalValueAsker(tty, lock)
    if yes:
        return TerminalAskers(approve_all, ask_value)
    from rich.console import Console

    from karyi.cli.ask import TerminalApprover

    err = err or Console(stderr=True, highlight=False, soft_wrap=True)
    return TerminalAskers(TerminalApprover(tty, err, lock=lock), ask_value)
