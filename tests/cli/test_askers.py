"""`karyi run` and `karyi exec` ask through one set of askers (cli/askers.py)."""

from __future__ import annotations

import io

from rich.console import Console

from karyi.agent.review.approval import ApprovalRequest, approve_all
from karyi.cli.ask import TerminalApprover, TerminalValueAsker
from karyi.cli.askers import terminal_askers
from karyi.protocol.calls import ToolCall
from karyi.tools.base import Confirmation
from karyi.tools.builtin.commands.terminal import Command


async def test_yes_approves_everything_and_values_need_a_terminal() -> None:
    askers = terminal_askers(None, yes=True)
    assert askers.approver is approve_all and askers.ask_value is None
    with_tty = terminal_askers(io.StringIO(), yes=True)
    assert isinstance(with_tty.ask_value, TerminalValueAsker)


async def test_without_yes_the_terminal_asks_under_one_lock() -> None:
    err = io.StringIO()
    askers = terminal_askers(io.StringIO("y\n"), yes=False, err=Console(file=err, width=100))
    approver, ask_value = askers.approver, askers.ask_value
    assert isinstance(approver, TerminalApprover) and isinstance(ask_value, TerminalValueAsker)
    assert approver._lock is ask_value.lock  # one question at a time
    call = ToolCall(0, "command", {"command": "make"}, "call_1")
    conf = Confirmation("command", "Run", details="make")
    assert (await approver(ApprovalRequest(call, Command(), "Run `make`", conf))).allow


async def test_without_a_terminal_a_call_that_needs_a_yes_is_refused() -> None:
    askers = terminal_askers(None, yes=False)
    call = ToolCall(0, "command", {"command": "make"}, "call_1")
    conf = Confirmation("command", "Run", details="make")
    decision = await askers.approver(ApprovalRequest(call, Command(), "Run `make`", conf))
    assert not decision.allow and "--yes" in (decision.feedback or "")
