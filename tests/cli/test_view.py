"""The terminal view of a turn: how agent events look on the terminal."""

from __future__ import annotations

from karyi.agent.events import Subagent, ToolDone


def test_the_terminal_shows_nested_calls_indented() -> None:
    import io

    from rich.console import Console

    from karyi.agent.events import ToolQueued
    from karyi.cli.view import TerminalView
    from karyi.core.results import ToolResult
    from karyi.protocol.calls import ToolCall

    out, err = io.StringIO(), io.StringIO()
    view = TerminalView(Console(file=out, width=100), Console(file=err, width=100))
    call = ToolCall(0, "grep", {"pattern": "x"}, "call_1/call_1")
    view(Subagent("explore", "call_1", ToolQueued(call, "Search for x")))
    view(Subagent("explore", "call_1", ToolDone(call, ToolResult.ok("found"), "auto", 0.1)))
    assert err.getvalue() == "    ↳ explore: Search for x\n    ✓ explore: grep\n"


def test_a_command_line_says_whether_it_ran_sandboxed() -> None:
    import io

    from rich.console import Console

    from karyi.cli.view import TerminalView
    from karyi.core.results import ToolResult
    from karyi.protocol.calls import ToolCall

    out, err = io.StringIO(), io.StringIO()
    view = TerminalView(Console(file=out, width=100), Console(file=err, width=100))
    call = ToolCall(0, "command", {"command": "make"}, "call_1")
    view(ToolDone(call, ToolResult.ok("ok", sandboxed=True), "auto", 0.1))
    view(ToolDone(call, ToolResult.ok("ok", sandboxed=False), "allowed", 0.1))
    first, _, second, _ = err.getvalue().splitlines()
    assert first.endswith("0.10s  sandboxed") and second.endswith("0.10s  NOT sandboxed")


async def test_the_prompt_shows_the_sandbox_and_leaving_it_offers_no_always() -> None:
    import io

    from rich.console import Console

    from karyi.agent.review.approval import ApprovalRequest
    from karyi.cli.ask import TerminalApprover
    from karyi.protocol.calls import ToolCall
    from karyi.tools.base import Confirmation
    from karyi.tools.builtin.commands.terminal import Command

    err = io.StringIO()
    call = ToolCall(0, "command", {"command": "make", "sandbox": False}, "call_1")
    conf = Confirmation("command", "Run", details="make", sandboxed=False, always=False)
    ask = TerminalApprover(io.StringIO("a\ny\n"), Console(file=err, width=100))
    decision = await ask(ApprovalRequest(call, Command(), "Run `make`", conf))
    assert decision.allow and decision.remember is None  # "a" is not offered: asked again
    shown = err.getvalue()
    assert "NOT sandboxed" in shown and "[a]lways" not in shown


def test_the_terminal_prints_the_task_list_when_it_changes() -> None:
    import io

    from rich.console import Console

    from karyi.agent.events import Todos
    from karyi.cli.view import TerminalView
    from karyi.tools.context import TodoItem

    out, err = io.StringIO(), io.StringIO()
    view = TerminalView(Console(file=out, width=100), Console(file=err, width=100))
    view(Todos((TodoItem("1", "Read", "done"), TodoItem("2", "Fix", "in_progress"))))
    assert err.getvalue() == "Tasks (1/2 done)\n  ☑ Read\n  ▶ Fix\n"


def test_the_terminal_says_what_a_hook_did() -> None:
    import io

    from rich.console import Console

    from karyi.agent.events import Hook
    from karyi.cli.view import TerminalView

    out, err = io.StringIO(), io.StringIO()
    view = TerminalView(Console(file=out, width=120), Console(file=err, width=120))
    view(Hook("beforeTool", "./guard", "command", "ok", 0, "", "", 0.1))
    view(Hook("beforeTool", "./guard", "command", "blocked", 2, "", "no rm", 0.1))
    view(Hook("turnEnd", "make lint", "", "ok", 0, "lint clean", "", 0.1))
    assert err.getvalue() == (
        "⚑ beforeTool hook `./guard` blocked it: no rm\n⚑ turnEnd hook: lint clean\n"
    )


def test_the_turn_line_shows_its_cost_and_the_sessions() -> None:
    import io

    from rich.console import Console

    from karyi.agent.events import TurnFinished
    from karyi.cli.view import TerminalView

    out, err = io.StringIO(), io.StringIO()
    view = TerminalView(Console(file=out, width=160), Console(file=err, width=160))
    view(TurnFinished("t", "cost_limit", None, 1000, 100, 1, 0, 1.2, 3.5))
    assert err.getvalue() == (
        "— cost limit · 1 step(s) · 1,000 in / 100 out tokens · $1.2000 (session $3.5000)\n"
    )
