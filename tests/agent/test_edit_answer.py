"""An editor's answer to an edit preview, by hunks or with the user's own text."""

from __future__ import annotations

from pathlib import Path

from karyi.agent.review.approval import ApprovalRequest
from karyi.agent.review.edit_answer import edit_decision
from karyi.protocol.calls import ToolCall
from karyi.tools.base import Confirmation
from karyi.tools.registry import ToolRegistry
from karyi.workspace.editor import PlannedWrite
from tests.support.steps import Change

BEFORE = "def one():\n    return 1\n\n\n\n\n\n\ndef two():\n    return 2\n"
AFTER = BEFORE.replace("return 1", "return 10").replace("return 2", "return 20")
PATH = Path("/work/demo/calc.py")


def request() -> ApprovalRequest:
    reg = ToolRegistry()
    reg.register("t", Change())
    tool = reg.toolkit("t").get("change")
    assert tool is not None
    write = PlannedWrite(PATH, "calc.py", BEFORE, AFTER)
    confirmation = Confirmation(kind="edit", title="Edit calc.py", files=(write,))
    return ApprovalRequest(ToolCall(0, "change", {}, "c1"), tool, "Edit calc.py", confirmation)


def test_a_partial_answer_overrides_the_file_and_says_which_hunks() -> None:
    decision = edit_decision({"outcome": "allowOnce", "acceptedHunks": ["h1"]}, request())
    assert decision is not None and decision.allow
    assert decision.overrides == {str(PATH): (BEFORE, BEFORE.replace("return 1", "return 10"))}
    assert decision.note == "In calc.py the user applied hunk(s) h1 and rejected h2."


def test_feedback_with_a_partial_answer_is_told_to_the_model() -> None:
    answer = {"outcome": "allowOnce", "acceptedHunks": ["h1"], "feedback": "not two()"}
    decision = edit_decision(answer, request())
    assert decision is not None and decision.note == (
        "In calc.py the user applied hunk(s) h1 and rejected h2.\nThe user said: not two()"
    )


def test_rejecting_every_hunk_is_a_rejection_with_the_feedback() -> None:
    answer = {"outcome": "allowOnce", "acceptedHunks": [], "feedback": "no"}
    decision = edit_decision(answer, request())
    assert decision is not None and not decision.allow and decision.feedback == "no"
