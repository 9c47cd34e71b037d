"""The truth told after the user changed an edit: each hunk's fate and the lines now."""

from __future__ import annotations

from pathlib import Path

import pytest

from karyi.agent.review.edit_truth import MAX_SHOWN, fates, report, truthful
from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult
from karyi.workspace.editor import WriteRecord
from karyi.workspace.snapshots import Snapshot

BEFORE = "def one():\n    return 1\n\n\n\n\n\n\ndef two():\n    return 2\n"
PROPOSED = BEFORE.replace("return 1", "return 10").replace("return 2", "return 20")
ONLY_H1 = BEFORE.replace("return 1", "return 10")
PATH = Path("/work/demo/calc.py")


def record(after: str, proposed: str | None = PROPOSED, before: str | None = BEFORE) -> WriteRecord:
    base = None if before is None else Snapshot(PATH, before, "v1", "disk", len(before))
    return WriteRecord(PATH, "calc.py", base, after, proposed=proposed)


def summary(before: str, proposed: str, after: str) -> list[tuple[str, str | None, int, int]]:
    """(status, hunk id, first line, end line) per change, 1-based first line."""
    return [
        (f.status, f.hunk.id if f.hunk else None, f.start + 1, f.end)
        for f in fates(before, proposed, after)
    ]


def test_an_answer_by_hunks_is_accepted_or_rejected_per_hunk() -> None:
    assert summary(BEFORE, PROPOSED, ONLY_H1) == [
        ("accepted", "h1", 2, 2),
        ("rejected", "h2", 10, 10),
    ]
    assert summary(BEFORE, PROPOSED, PROPOSED) == [
        ("accepted", "h1", 2, 2),
        ("accepted", "h2", 10, 10),
    ]
    assert summary(BEFORE, PROPOSED, BEFORE) == [
        ("rejected", "h1", 2, 2),
        ("rejected", "h2", 10, 10),
    ]


def test_identical_hunks_are_told_apart_by_place() -> None:
    before = "x = 1\na\nb\nc\nd\ne\nf\ng\nx = 1\n"
    after = "x = 1\na\nb\nc\nd\ne\nf\ng\nx = 2\n"
    assert summary(before, before.replace("x = 1", "x = 2"), after) == [
        ("rejected", "h1", 1, 1),
        ("accepted", "h2", 9, 9),
    ]


def test_crlf_files_are_matched_on_their_own_line_endings() -> None:
    crlf = BEFORE.replace("\n", "\r\n")
    after = ONLY_H1.replace("\n", "\r\n")
    assert summary(crlf, PROPOSED.replace("\n", "\r\n"), after) == [
        ("accepted", "h1", 2, 2),
        ("rejected", "h2", 10, 10),
    ]


def test_the_users_own_text_rewrites_a_hunk_and_adds_a_change_of_their_own() -> None:
    after = "# mine\n" + BEFORE.replace("return 1", "return 100")
    assert summary(BEFORE, PROPOSED, after) == [
        ("user", None, 1, 1),
        ("modified", "h1", 3, 3),
        ("rejected", "h2", 11, 11),
    ]


def test_lines_the_user_added_next_to_an_accepted_hunk_are_their_own_change() -> None:
    after = BEFORE.replace("return 1", "return 10\n    # checked") + "# end\n"
    assert summary(BEFORE, PROPOSED, after) == [
        ("accepted", "h1", 2, 2),
        ("user", None, 3, 3),
        ("rejected", "h2", 11, 11),
        ("user", None, 12, 12),
    ]


def test_a_new_file_the_user_rewrote() -> None:
    assert summary("", "a\nb\n", "a\nc\n") == [("modified", "h1", 1, 2)]


def test_report_of_a_partial_answer() -> None:
    changes = fates(BEFORE, PROPOSED, ONLY_H1)
    assert report(record(ONLY_H1), changes) == (
        "calc.py: the user applied only part of your edit; what the file holds now, change "
        "by change:\n"
        "h1: applied as you proposed. Lines 1-5 now:\n"
        "  1: def one():\n"
        "  2:     return 10\n"
        "  3:\n"
        "  4:\n"
        "  5:\n"
        "h2: rejected by the user, not applied. You proposed:\n"
        "  -    return 2\n"
        "  +    return 20\n"
        "Lines 7-10 now (unchanged):\n"
        "   7:\n"
        "   8:\n"
        "   9: def two():\n"
        "  10:     return 2"
    )


def test_report_of_the_users_own_text() -> None:
    after = "# mine\n" + BEFORE.replace("return 1", "return 100")
    assert report(record(after), fates(BEFORE, PROPOSED, after)) == (
        "calc.py: the user edited your change before it was written; what the file holds "
        "now, change by change:\n"
        "The user also changed these lines (not part of your edit). Lines 1-4 now:\n"
        "  1: # mine\n"
        "  2: def one():\n"
        "  3:     return 100\n"
        "  4:\n"
        "h1: rewritten by the user; their text was written instead. You proposed:\n"
        "  -    return 1\n"
        "  +    return 10\n"
        "Lines 1-6 now (with the user's text):\n"
        "  1: # mine\n"
        "  2: def one():\n"
        "  3:     return 100\n"
        "  4:\n"
        "  5:\n"
        "  6:\n"
        "h2: rejected by the user, not applied. You proposed:\n"
        "  -    return 2\n"
        "  +    return 20\n"
        "Lines 8-11 now (unchanged):\n"
        "   8:\n"
        "   9:\n"
        "  10: def two():\n"
        "  11:     return 2"
    )


def test_report_headlines_of_a_file_written_as_proposed_and_of_one_left_alone() -> None:
    assert report(record(PROPOSED, None), fates(BEFORE, PROPOSED, PROPOSED)).startswith(
        "calc.py: written as you proposed.\nh1: applied as you proposed. Lines 1-5 now:"
    )
    assert report(record(BEFORE), fates(BEFORE, PROPOSED, BEFORE)).startswith(
        "calc.py: the user rejected every change you proposed to it; it is unchanged.\n"
    )


def test_report_says_when_the_file_changed_after_the_preview() -> None:
    before = "# typed\n" + BEFORE
    after = "# typed\n" + ONLY_H1
    proposed = "# typed\n" + PROPOSED
    text = report(record(after, proposed, before), fates(before, proposed, after), seen=BEFORE)
    assert text.endswith(
        "Note: calc.py changed between the preview the user answered and the write (the user "
        "typed in it, or it changed on disk); that change is kept, so lines not shown here "
        "may differ from what you read."
    )


def test_long_changes_are_cut_and_counted() -> None:
    before = "".join(f"line {i}\n" for i in range(100))
    proposed = before.replace("line 50\n", "".join(f"new {i}\n" for i in range(50)))
    after = before.replace("line 50\n", "".join(f"mine {i}\n" for i in range(50)))
    text = report(record(after, proposed, before), fates(before, proposed, after))
    assert "  ... (39 more lines of your proposal)" in text
    assert "Lines 48-103 now (with the user's text):" in text
    assert f"  ... ({56 - MAX_SHOWN} more lines; read the file to see them)" in text


def test_a_result_nothing_overrode_is_left_as_it_is() -> None:
    result = ToolResult.ok("Replaced 1 occurrence in calc.py", data="Replaced")
    assert truthful(result, []) is result
    assert truthful(result, [record(PROPOSED, None)]) is result
    assert truthful(result, [record(PROPOSED, PROPOSED)]) is result  # the user took it all


@pytest.mark.parametrize(
    ("data", "told"),
    [
        ("Replaced 1 occurrence in calc.py (line 2, exact match)", "text"),
        ({"path": "calc.py"}, "dict"),
        (None, None),
    ],
)
def test_the_truth_replaces_what_the_model_reads(data: object, told: str | None) -> None:
    result = ToolResult.ok("the tool's own words", data=data)
    out = truthful(result, [record(ONLY_H1)])
    assert out.success
    assert out.llm_content.startswith("calc.py: the user applied only part of your edit")
    assert out.llm_content.endswith(
        "\nContinue from the file as shown here, not from your proposal."
    )
    written = [
        {
            "path": "calc.py",
            "changes": [
                {"hunk": "h1", "status": "accepted", "lines": [2, 2]},
                {"hunk": "h2", "status": "rejected", "lines": [10, 10]},
            ],
        }
    ]
    if told == "text":  # agentxml shows the model `data`: it says the same
        assert out.data == out.llm_content
    elif told == "dict":
        assert out.data == {"path": "calc.py", "written": written}
    else:
        assert out.data is None


def test_a_failure_keeps_its_message_after_the_truth() -> None:
    failed = ToolResult.fail(ErrorCode.INVALID_TOOL_INPUT, "pair 1: not found in b.py")
    out = truthful(failed, [record(ONLY_H1)])
    assert not out.success and out.error == failed.error
    assert out.llm_content.endswith("\nThe call also failed: pair 1: not found in b.py")


def test_the_preview_text_is_looked_up_per_file() -> None:
    before = "# typed\n" + BEFORE
    rec = record("# typed\n" + ONLY_H1, "# typed\n" + PROPOSED, before)
    out = truthful(ToolResult.ok("x"), [rec], {str(PATH): (BEFORE, ONLY_H1)})
    assert "Note: calc.py changed between the preview" in out.llm_content
    same = truthful(ToolResult.ok("x"), [record(ONLY_H1)], {str(PATH): (BEFORE, ONLY_H1)})
    assert "Note:" not in same.llm_content
