"""The chat's widgets as pictures (pytest-textual-snapshot): a proposed edit reviewed
hunk by hunk, a command's permission, tool cards in each state, the status line. A
changed picture fails until a person looks at it and accepts it with
`pytest tests/cli/chat/test_snapshots.py --snapshot-update`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from karyi.agent.frontend.startup import toolkit_for
from karyi.agent.review.approval import ApprovalRequest
from karyi.cli.chat.questions import PermissionQuestion
from karyi.cli.chat.status import StatusLine
from karyi.cli.chat.widgets import NoticeLine, ToolCard, UserMessage
from karyi.protocol.calls import ToolCall
from karyi.settings import Settings
from karyi.tools.base import Confirmation
from karyi.workspace.editor import PlannedWrite

Snap = Callable[..., bool]
BEFORE = "import math\n\n" + "".join(f"x{i} = {i}\n" for i in range(8)) + "print(x0)\n"
AFTER = BEFORE.replace("import math", "import math, sys").replace("print(x0)", "print(x7)")


def request(name: str, confirmation: Confirmation) -> ApprovalRequest:
    tool = toolkit_for(Settings()).get(name)
    assert tool is not None
    call = ToolCall(0, name, {}, "c1")
    return ApprovalRequest(call, tool, confirmation.title, confirmation)


class Gallery(App[None]):
    """The widgets under test, each as the chat mounts it."""

    def __init__(self, *questions: ApprovalRequest) -> None:
        super().__init__()
        self.requests = questions

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield UserMessage("tidy the script")
            done = ToolCard("c0", "Read tidy.py")
            done.set_status("done", seconds=0.04)
            done.set_result("Read 1 of 1 item(s)")
            failed = ToolCard("c2", "Run pytest -q")
            failed.set_status("failed", seconds=1.5, detail="exit 1")
            failed.set_result("1 failed, 3 passed")
            yield done
            yield failed
            yield NoticeLine("— end turn · 2 step(s) · 1,200 in / 40 out tokens", classes="dim")
            for r in self.requests:
                yield PermissionQuestion(r)
        status = StatusLine()
        yield status
        status.show(model="openai:gpt-4.1", context_used=3100, context_window=128000, cost=0.0123)
        status.show(sandbox="sandboxed")


def test_an_edit_reviewed_hunk_by_hunk(snap_compare: Snap) -> None:
    write = PlannedWrite(Path("/w/tidy.py"), "tidy.py", BEFORE, AFTER)
    conf = Confirmation("edit", "Edit tidy.py", files=(write,), diff=write.diff().unified)

    async def untick_the_second(pilot: Pilot[None]) -> None:
        pilot.app.query_one(PermissionQuestion).focus()
        await pilot.press("down", "space")

    app = Gallery(request("edit", conf))
    assert snap_compare(app, terminal_size=(90, 34), run_before=untick_the_second)


def test_a_command_asked_outside_the_sandbox(snap_compare: Snap) -> None:
    conf = Confirmation(
        "command",
        "Run curl example.com",
        details="$ curl example.com",
        sandboxed=False,
        always=False,
    )
    assert snap_compare(Gallery(request("command", conf)), terminal_size=(90, 24))
