"""An editor's answer to an edit preview, by hunks or with the user's own text."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from karyi.agent.review.approval import ApprovalRequest
from karyi.agent.review.edit_answer import edit_decision
from karyi.protocol.calls import ToolCall
from karyi.tools.base import Confirmation
from karyi.tools.context import ToolContext
from karyi.tools.registry import ToolRegistry
from karyi.workspace.editor import PlannedWrite
from tests.support.steps import Change
from tests.support.tool_calls import REG

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


# -- one file named by two <file> elements of one edit ---------------------------------

TWICE = "def one():\n    return 1\n\n\n\n\n\n\n\ndef two():\n    return 2\n"


async def test_a_file_named_twice_in_one_edit_has_one_preview_with_unique_hunks(
    ctx: ToolContext, ws_root: Path
) -> None:
    path = ws_root / "calc.py"
    path.write_text(TWICE)
    params = {
        "files": [
            {"src": "calc.py", "pairs": [{"find": "return 1", "replace": "return 10"}]},
            {"src": "calc.py", "pairs": [{"find": "return 2", "replace": "return 20"}]},
        ]
    }
    tool = REG.find("karyi.edit")
    conf = tool.confirmation(params, ctx)
    (write,) = conf.files  # one preview of the file's whole change, not two
    assert [h.id for h in write.diff().hunks] == ["h1", "h2"]
    assert write.after == TWICE.replace("return 1", "return 10").replace("return 2", "return 20")

    call = ToolCall(0, "edit", params, "c1")
    decision = edit_decision(
        {"acceptedHunks": ["calc.py#h2"]}, ApprovalRequest(call, tool, conf.title, conf)
    )
    assert decision is not None and decision.allow and decision.overrides is not None
    assert decision.note == "In calc.py the user applied hunk(s) h2 and rejected h1."
    result = await tool.run(params, dataclasses.replace(ctx, overrides=decision.overrides))
    assert result.success, result.llm_content
    assert path.read_text() == TWICE.replace("return 2", "return 20")  # only the hunk chosen
    assert "the user chose its final text" in result.llm_content


async def test_a_file_named_twice_applies_both_in_order_when_allowed(
    ctx: ToolContext, ws_root: Path
) -> None:
    path = ws_root / "calc.py"
    path.write_text(TWICE)
    params = {
        "files": [
            {"src": "calc.py", "pairs": [{"find": "return 1", "replace": "return 10"}]},
            {"src": "calc.py", "pairs": [{"find": "return 10", "replace": "return 100"}]},
        ]
    }
    (write,) = REG.find("karyi.edit").confirmation(params, ctx).files
    assert write.after == TWICE.replace("return 1", "return 100")  # the second on the first
    result = await REG.find("karyi.edit").run(params, ctx)
    assert result.success and path.read_text() == write.after
