"""What an edit changed: hunks with ids and ranges, LSP text edits, the unified diff."""

from __future__ import annotations

import pytest

from karyi.workspace.diffs import apply_hunks
from tests.support.edit_calls import edit

# -- diff, text edits and hunks -------------------------------------------------------------


def test_diff_hunks_have_ids_ranges_and_apply_one_by_one() -> None:
    lines = [f"line {i}\n" for i in range(1, 31)]
    original = "".join(lines)
    out = edit(original, ("line 2\n", "LINE 2\n"), ("line 25\n", "LINE 25\nextra\n"))
    ids = [h.id for h in out.diff.hunks]
    assert ids == ["h1", "h2"]
    h1, h2 = out.diff.hunks
    assert h1.header == "@@ -1,5 +1,5 @@" and h2.header == "@@ -22,7 +22,8 @@"
    assert h1.range.to_json() == {
        "start": {"line": 1, "character": 0},
        "end": {"line": 2, "character": 0},
    }
    assert h1.new_text == "LINE 2\n"
    only_second = apply_hunks(original, out.diff.hunks, ["h2"])
    assert only_second == original.replace("line 25\n", "LINE 25\nextra\n")
    assert apply_hunks(original, out.diff.hunks, ["h1", "h2"]) == out.text
    assert apply_hunks(original, out.diff.hunks, []) == original
    with pytest.raises(KeyError):
        apply_hunks(original, out.diff.hunks, ["h9"])


def test_text_edits_use_utf16_columns() -> None:
    out = edit("é😀x = 1\n", ("x = 1", "x = 2"))
    (e,) = out.diff.edits
    assert e.to_json() == {
        "range": {"start": {"line": 0, "character": 7}, "end": {"line": 0, "character": 8}},
        "newText": "2",
    }


def test_unified_diff_of_a_change() -> None:
    out = edit("a\nb\nc\n", ("b", "B"))
    assert out.diff.unified == "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    assert (out.diff.added, out.diff.removed) == (1, 1)


def test_no_newline_at_end_is_marked() -> None:
    out = edit("a\nb", ("b", "c"))
    assert out.diff.unified.endswith(
        "-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
    )


def test_text_edits_count_cjk_combining_marks_and_joined_emoji_in_utf16() -> None:
    # 東京 2 units, e + U+0301 2, 👩 + ZWJ + 💻 5, then a space: "x" starts at unit 10
    out = edit("東京e\u0301👩\u200d💻 x = 1\n", ("x = 1", "x = 2"))
    (e,) = out.diff.edits
    assert e.to_json()["range"] == {
        "start": {"line": 0, "character": 14},
        "end": {"line": 0, "character": 15},
    }
