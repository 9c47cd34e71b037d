"""A call's writes, journaled: after the user changed an edit, every edit tool's result is
the truth about the file (on disk, or in the editor's buffer), through the executor."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from karyi.agent.review.approval import ApprovalRequest, Approver, Decision
from karyi.agent.review.edit_answer import edit_decision
from karyi.agent.turn.executor import run_calls
from karyi.protocol.calls import ToolCall
from karyi.secrets.vault import Vault
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry
from karyi.workspace.editor import WriteRecord

BEFORE = "def one():\n    return 1\n\n\n\n\n\n\ndef two():\n    return 2\n"
PROPOSED = BEFORE.replace("return 1", "return 10").replace("return 2", "return 20")
ONLY_H1 = BEFORE.replace("return 1", "return 10")
OLD = "    return 1\n\n\n\n\n\n\ndef two():\n    return 2\n"
NEW = OLD.replace("return 1", "return 10").replace("return 2", "return 20")
PARTIAL = (
    "calc.py: the user applied only part of your edit; what the file holds now, change by "
    "change:\n"
    "h1: applied as you proposed. Lines 1-5 now:\n"
    "  1: def one():\n"
    "  2:     return 10\n"
)
REJECTED_H2 = (
    "h2: rejected by the user, not applied. You proposed:\n"
    "  -    return 2\n"
    "  +    return 20\n"
    "Lines 7-10 now (unchanged):\n"
)

# (profile, tool, parameters) of every tool that changes a file with two hunks
TWO_HUNK_CALLS = [
    ("karyi", "edit", {"files": [{"src": "calc.py", "pairs": [
        {"find": "    return 1", "replace": "    return 10"},
        {"find": "    return 2", "replace": "    return 20"},
    ]}]}),
    ("agentxml", "replace_file_content",
     {"filePath": "calc.py", "oldContent": OLD, "newContent": NEW}),
    ("vecli", "edit", {"file_path": "calc.py", "old_string": OLD, "new_string": NEW}),
    ("agentxml", "write_file", {"filePath": "calc.py", "content": PROPOSED}),
    ("vecli", "write_file", {"file_path": "calc.py", "content": PROPOSED}),
    ("gateway", "update_file", {"path": "calc.py", "content": PROPOSED}),
]  # fmt: skip


class BufferEditor:
    """An editor with calc.py open: writes to it are deferred and applied to its buffer
    (then saved), as the language server does."""

    def __init__(self, ctx: ToolContext, path: Path) -> None:
        self.docs = ctx.workspace.documents
        self.path = path
        self.applied: list[str] = []
        self.docs.open_buffer(path, path.read_text(), 1)

    def owns(self, path: Path) -> bool:
        return path == self.path

    async def apply(self, writes: Sequence[WriteRecord], label: str) -> list[str]:
        for w in writes:
            self.docs.change_buffer(w.path, w.after, 2)
            self.docs.save(w.path, w.after, display=w.display)
            self.applied.append(w.after)
        return []


def answering(**answer: Any) -> Approver:
    """An approver answering like an editor does: through `edit_decision`."""

    async def approver(request: ApprovalRequest) -> Decision:
        decision = edit_decision({"outcome": "allowOnce", **answer}, request)
        assert decision is not None
        return decision

    return approver


async def run_one(
    ctx: ToolContext, profile: str, name: str, params: dict[str, Any], **answer: Any
) -> str:
    kit = builtin_registry().toolkit(profile)
    [done] = await run_calls([ToolCall(0, name, params, "c1")], kit, ctx, answering(**answer))
    assert done.result.success, done.result.llm_content
    assert done.decision == "modified"
    return done.result.llm_content


@pytest.fixture
def calc(ws_root: Path) -> Path:
    path = ws_root / "calc.py"
    path.write_text(BEFORE)
    return path


@pytest.mark.parametrize("open_in_editor", [False, True], ids=["closed", "open"])
@pytest.mark.parametrize(("profile", "name", "params"), TWO_HUNK_CALLS, ids=lambda v: str(v)[:24])
async def test_every_edit_tool_tells_the_truth_after_a_partial_answer(
    ctx: ToolContext,
    calc: Path,
    profile: str,
    name: str,
    params: dict[str, Any],
    open_in_editor: bool,
) -> None:
    editor = BufferEditor(ctx, calc) if open_in_editor else None
    if name == "edit" and profile == "vecli":
        params = {**params, "file_path": str(calc)}
    if editor is not None:
        ctx = dataclasses.replace(ctx, editor=editor)
    told = await run_one(ctx, profile, name, params, acceptedHunks=["h1"])
    told = told.replace(str(calc), "calc.py")  # vecli names files by absolute path
    assert told.startswith("In calc.py the user applied hunk(s) h1 and rejected h2.\n" + PARTIAL)
    assert REJECTED_H2 in told and "  10:     return 2\n" in told
    assert calc.read_text() == ONLY_H1
    if editor is not None:
        assert editor.applied == [ONLY_H1]
        assert ctx.workspace.documents.read(calc, "calc.py").text == ONLY_H1


@pytest.mark.parametrize(
    ("profile", "name", "params", "mine", "says"),
    [
        (
            "agentxml",
            "insert_file_content",
            {"filePath": "calc.py", "position": 0, "content": "# head\n"},
            "# my head\n" + BEFORE,
            "h1: rewritten by the user; their text was written instead. You proposed:\n"
            "  +# head\n"
            "Lines 1-4 now (with the user's text):\n"
            "  1: # my head\n",
        ),
        (
            "agentxml",
            "append_file",
            {"filePath": "calc.py", "content": "# end\n"},
            BEFORE + "# the end\n",
            "h1: rewritten by the user; their text was written instead. You proposed:\n"
            "  +# end\n"
            "Lines 8-11 now (with the user's text):\n",
        ),
        (
            "gateway",
            "create_file",
            {"path": "new.py", "content": "a = 1\nb = 2\n"},
            "a = 1\nb = 3\n",
            "new.py: the user edited your change before it was written; what the file holds "
            "now, change by change:\n"
            "h1: rewritten by the user; their text was written instead. You proposed:\n"
            "  +a = 1\n"
            "  +b = 2\n"
            "Lines 1-2 now (with the user's text):\n"
            "  1: a = 1\n"
            "  2: b = 3\n",
        ),
    ],
    ids=["insert", "append", "create"],
)
async def test_the_users_own_text_is_what_the_model_reads(
    ctx: ToolContext,
    calc: Path,
    ws_root: Path,
    profile: str,
    name: str,
    params: dict[str, Any],
    mine: str,
    says: str,
) -> None:
    target = str(params.get("filePath") or params.get("path"))
    told = await run_one(
        ctx, profile, name, params, modifiedContent=[{"uri": target, "text": mine}]
    )
    assert says in told
    assert told.endswith("Continue from the file as shown here, not from your proposal.")
    assert (ws_root / target).read_text() == mine


async def test_a_whole_answer_leaves_the_tools_result_as_it_is(
    ctx: ToolContext, calc: Path
) -> None:
    told = await run_one(
        ctx, "agentxml", "replace_file_content",
        {"filePath": "calc.py", "oldContent": OLD, "newContent": NEW},
        acceptedHunks=["h1", "h2"],
    )  # fmt: skip
    assert told == "Replaced 1 occurrence in calc.py (lines 2-10, exact match)"


async def test_agentxml_data_says_the_same_as_the_text(ctx: ToolContext, calc: Path) -> None:
    kit = builtin_registry().toolkit("agentxml")
    params = {"filePath": "calc.py", "oldContent": OLD, "newContent": NEW}
    call = ToolCall(0, "replace_file_content", params, "c1")
    [done] = await run_calls([call], kit, ctx, answering(acceptedHunks=["h1"]))
    assert done.result.data == done.result.llm_content  # the user's note included
    assert done.result.llm_content.startswith(
        "In calc.py the user applied hunk(s) h1 and rejected h2.\n" + PARTIAL
    )
    assert done.outcome().data == done.result.llm_content  # what the agentxml dialect shows


async def test_feedback_with_a_partial_answer_reaches_the_model(
    ctx: ToolContext, calc: Path
) -> None:
    told = await run_one(
        ctx, "agentxml", "write_file", {"filePath": "calc.py", "content": PROPOSED},
        acceptedHunks=["h1"], feedback="leave two() alone",
    )  # fmt: skip
    assert told.startswith(
        "In calc.py the user applied hunk(s) h1 and rejected h2.\n"
        "The user said: leave two() alone\n" + PARTIAL
    )


async def test_secret_values_in_the_lines_shown_are_redacted(ctx: ToolContext, calc: Path) -> None:
    vault = Vault()
    vault.remember("TOKEN", "s3cr3t-value-123")
    ctx = dataclasses.replace(ctx, secrets=vault)
    calc.write_text("TOKEN = 's3cr3t-value-123'\n" + BEFORE)
    params = {"filePath": "calc.py", "content": "TOKEN = 's3cr3t-value-123'\n" + PROPOSED}
    told = await run_one(ctx, "agentxml", "write_file", params, acceptedHunks=["h1"])
    assert calc.read_text() == "TOKEN = 's3cr3t-value-123'\n" + ONLY_H1
    assert "  1: TOKEN = '$KARYI{TOKEN}'\n" in told and "s3cr3t" not in told
