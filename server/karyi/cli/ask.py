"""The terminal's questions to the user: approvals of tool calls and the secret values
the agent asks for (`karyi run`, `karyi exec`).

Approvals show what will happen (a command, a diff) and accept y / a (always, this
session) / n / f (no, with feedback for the model). Values are read without echo.
"""

from __future__ import annotations

import asyncio
import getpass
import sys
from typing import IO

from rich.console import Console
from rich.text import Text

from karyi.agent.review.approval import ApprovalRequest, Decision
from karyi.secrets.request import ValueAnswer, ValueRequest


class TerminalApprover:
    """Asks on a terminal; without one, refuses and says how to approve (`--yes`)."""

    def __init__(
        self, tty: IO[str] | None, err: Console, *, lock: asyncio.Lock | None = None
    ) -> None:
        self.tty = tty
        self.err = err
        self._lock = lock or asyncio.Lock()

    async def __call__(self, request: ApprovalRequest) -> Decision:
        """Show the request and read the answer."""
        if self.tty is None:
            return Decision(
                False, "no terminal to ask for confirmation (the user can rerun with --yes)"
            )
        async with self._lock:
            return await asyncio.to_thread(self._ask, request)

    def _ask(self, request: ApprovalRequest) -> Decision:
        assert self.tty is not None
        self.err.print(Text.assemble(("? ", "bold magenta"), (request.description, "bold")))
        conf = request.confirmation
        if conf is not None:
            if conf.details:
                self.err.print(Text("  " + conf.details.rstrip().replace("\n", "\n  ")))
            if conf.diff:
                from rich.syntax import Syntax  # pygments, only for a question with a diff

                self.err.print(
                    Syntax(
                        conf.diff.rstrip(), "diff", theme="ansi_dark", background_color="default"
                    )
                )
            if conf.url:
                self.err.print(Text(f"  {conf.url}", style="underline"))
            if conf.sandboxed is not None:
                self.err.print(_sandbox_line(conf.sandboxed))
        always = conf is None or conf.always
        if request.reason:
            self.err.print(Text(f"  ({request.reason})", style="dim"))
        while True:
            offer = "[y]es / [a]lways this session / [n]o" if always else "[y]es / [n]o"
            self.err.print(Text(f"Allow? {offer} / [f]eedback: "), end="")
            answer = self.tty.readline()
            if not answer:
                return Decision(False, "the terminal closed before an answer")
            choice = answer.strip().lower()
            if choice in ("y", "yes"):
                return Decision(True)
            if choice in ("a", "always") and always:
                return Decision(True, remember="session")
            if choice in ("n", "no", ""):
                return Decision(False)
            if choice in ("f", "feedback"):
                self.err.print(Text("Feedback for the model: "), end="")
                feedback = self.tty.readline().strip()
                return Decision(False, feedback or None)


def _sandbox_line(sandboxed: bool) -> Text:
    """Whether the command runs in the OS sandbox, as the prompt shows it."""
    if sandboxed:
        return Text("  [sandboxed: files outside the workspace read-only, no network]", "dim")
    return Text("  [NOT sandboxed: the command can reach everything you can]", "bold yellow")


class TerminalValueAsker:
    """Answers `get_value` on the terminal: the value is read without echo (getpass on
    /dev/tty), then whether to save it and with which note."""

    def __init__(self, tty: IO[str], lock: asyncio.Lock) -> None:
        self.tty = tty
        self.lock = lock

    async def __call__(self, request: ValueRequest) -> ValueAnswer | None:
        """Ask; None when the user gives nothing."""
        async with self.lock:
            return await asyncio.to_thread(self._ask, request)

    def _ask(self, request: ValueRequest) -> ValueAnswer | None:
        out = sys.stderr
        out.write(f"\nThe agent asks for a secret value: {request.key}\n")
        out.write(f"Reason: {request.reason}\n")
        if request.exists:
            out.write("(a value is stored already: press Enter to keep it)\n")
        out.flush()
        try:
            value = getpass.getpass(f"{request.key} (input hidden, empty to refuse): ")
        except (EOFError, KeyboardInterrupt):
            return None
        if not value:
            return ValueAnswer("", False) if request.exists else None
        out.write("Save it for later sessions? [y/N] ")
        out.flush()
        save = self.tty.readline().strip().lower() in ("y", "yes")
        note = request.note
        if save:
            out.write(f"Note [{request.note}]: ")
            out.flush()
            note = self.tty.readline().strip() or request.note
        return ValueAnswer(value, save, note)
