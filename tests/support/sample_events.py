"""One event of every kind, with every field set, for the tests that pin the events' JSON
(docs/protocol.md, `karyi/turnUpdate`) and the extension's generated types of it."""

from __future__ import annotations

from pathlib import Path

from karyi.agent import events as ev
from karyi.core.results import ToolError, ToolResult
from karyi.protocol.calls import ToolCall
from karyi.tools.base import Confirmation
from karyi.tools.context import TodoItem
from karyi.workspace.editor import PlannedWrite


def sample_events(root: Path) -> list[ev.Event]:
    """Every event kind once (`root`: an absolute directory the file paths are under)."""
    call = ToolCall(0, "edit", {"path": "a.py"}, "c1", raw="<edit/>", error=None)
    bad = ToolCall(1, "read", {}, "c2", error="missing path", error_code="invalid_params")
    write = PlannedWrite(root / "a.py", "a.py", "x = 1\n", "x = 2\n", version=3)
    result = ToolResult(
        False, "failed", "shown", {"k": [1]}, ToolError("io", "disk"), {"m": 1}, "running"
    )
    confirm = Confirmation("edit", "Edit a.py", "details", "diff", None, (write,), None, False)
    inner = ev.ToolRunning(call)
    return [
        ev.TurnStarted("s1", "t1", "hi", "plan"),
        ev.Step(1, "openai:m"),
        ev.Text("hello", "thinking"),
        ev.ToolPending(0, "edit"),
        ev.ToolDraft(0, "edit", "c1", (write,)),
        ev.ToolDraft(0, "edit", "c1", (), True),
        ev.ToolQueued(bad, "read ?"),
        ev.ToolAwaitingPermission(call, "edit a.py", confirm, "asks"),
        ev.ToolAwaitingPermission(call, "edit a.py", None),
        ev.ToolRunning(call),
        ev.ToolOutput("c1", "out"),
        ev.ToolDone(call, result, "approved", 1.5),
        ev.ToolDone(call, ToolResult.ok("done"), "auto", 0.0),
        ev.FileChanged(call, (write,)),
        ev.ValueRequested("c1", "KEY", "needed", "a note", True),
        ev.Notice("retry", "again"),
        ev.Steered("and be brief"),
        ev.Usage(10, 5, 2, 0.5, 1.25),
        ev.Usage(10, 5),
        ev.Mode("s1", "act", "the plan"),
        ev.Hook("afterTool", "ruff", "edit", "reported", 2, "o", "e", 0.25),
        ev.Hook("userPrompt", "x", "", "failed", None, "", "", 1.0),
        ev.Todos((TodoItem("1", "do", "in_progress"),)),
        ev.Error("provider", "boom"),
        ev.TurnFinished("t1", "end", "answer", 10, 5, 2, 1, 0.5, 1.0),
        ev.TurnFinished("t1", "cancelled", None),
        ev.Subagent("reviewer", "c1", inner),
    ]
