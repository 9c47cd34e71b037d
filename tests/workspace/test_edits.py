"""The edit engine: exact and ordered pairs, refusals, creation, no change; a naive model."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from karyi.workspace.diffs import apply_hunks
from karyi.workspace.edits import EditError, Pair, apply_edits
from tests.support.edit_calls import LINES, edit, refused

# -- exact and ordered -----------------------------------------------------------------


def test_exact_pairs_apply_in_order_each_on_the_previous_result() -> None:
    out = edit("a = 1\nb = 2\n", ("a = 1", "a = 10"), ("a = 10\nb", "a = 11\nB"))
    assert out.text == "a = 11\nB = 2\n"
    assert [(p.strategy, p.first_line, p.last_line) for p in out.pairs] == [
        ("exact", 1, 1),
        ("exact", 1, 2),
    ]
    assert out.pairs[0].describe() == "pair 1: line 1, exact match"


def test_a_later_pair_can_match_text_an_earlier_pair_wrote() -> None:
    out = edit("x\n", ("x", "hello world"), ("lo wo", "LO-WO"))
    assert out.text == "helLO-WOrld\n"


def test_expected_count_replaces_every_place() -> None:
    out = edit("v = 1\nv = 1\nw = 1\n", Pair("v = 1", "v = 2", expected=2))
    assert out.text == "v = 2\nv = 2\nw = 1\n"
    assert out.pairs[0].count == 2


# -- refusals ------------------------------------------------------------------------------


def test_ambiguous_match_is_refused_with_candidate_lines() -> None:
    err = refused("x = 1\ny = 2\nx = 1\n", ("x = 1", "x = 3"))
    assert err.kind == "ambiguous" and err.lines == (1, 3)
    assert err.message == (
        "pair 1: the find text matches 2 places in f.py (lines 1, 3); include more "
        "surrounding lines so it matches exactly one"
    )


def test_wrong_expected_count_is_refused() -> None:
    err = refused("v\nv\nv\n", Pair("v", "w", expected=2))
    assert err.kind == "count" and err.lines == (1, 2, 3)
    assert "expected 2 occurrences of the find text in f.py but found 3" in err.message


def test_overlapping_occurrences_are_refused() -> None:
    err = refused("aaa\n", Pair("aa", "b", expected=2))
    assert err.kind == "overlap"


def test_a_miss_names_the_closest_region_with_similarity_and_text() -> None:
    text = "def total(items):\n    return sum(i.price for i in items)\n\nprint(1)\n"
    err = refused(text, ("def total(things):\n    return sum(t.cost for t in things)", "x"))
    assert err.kind == "no_match"
    assert err.region is not None
    assert (err.region.first_line, err.region.last_line) == (1, 2)
    assert 0.6 < err.region.similarity < 0.92
    assert err.region.text == "def total(items):\n    return sum(i.price for i in items)"
    assert "The closest region is lines 1-2 (" in err.message
    assert err.message.endswith("Copy the find text exactly from the file as it is now.")


def test_a_miss_with_nothing_alike_says_so() -> None:
    err = refused("alpha\n" * 3000, ("zzzz qqqq", "y"))
    assert err.message == (
        "pair 1: the find text was not found in f.py, and no part of the file resembles it; "
        "read the file again"
    )


def test_one_failing_pair_fails_the_whole_file() -> None:
    err = refused("a\nb\n", ("a", "A"), ("missing", "M"))
    assert err.pair == 2


def test_empty_find_on_a_non_empty_file_is_refused() -> None:
    err = refused("content\n", ("", "new"))
    assert err.kind == "empty_find"


def test_missing_file_with_a_find_text_is_refused() -> None:
    err = refused(None, ("x", "y"))
    assert err.kind == "missing_file"
    assert "use an empty find text" in err.message


# -- creation and no change ---------------------------------------------------------------


def test_empty_find_creates_a_missing_file() -> None:
    out = edit(None, ("", "hello\n"))
    assert out.text == "hello\n" and out.changed and out.diff.created
    assert out.diff.unified == "--- /dev/null\n+++ b/f.py\n@@ -0,0 +1 @@\n+hello\n"


def test_empty_find_fills_an_empty_file() -> None:
    assert edit("", ("", "x\n")).text == "x\n"


def test_replacement_equal_to_the_text_is_no_change() -> None:
    out = edit("x = 1\n", ("x = 1", "x = 1"))
    assert not out.changed and not out.pairs[0].changed and out.diff.empty
    assert "no change" in out.pairs[0].describe()


def test_a_replacement_already_in_place_is_reported_as_applied() -> None:
    out = edit("x = 2\n", ("x = 1", "x = 2"))
    assert not out.changed and out.pairs[0].strategy == "already_applied"
    assert out.pairs[0].describe() == (
        "pair 1: no change, the replacement text is already there (line 1)"
    )


# -- the engine against a naive model of it ---------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(LINES, min_size=1, max_size=25).map("".join),
    st.lists(
        st.tuples(st.integers(0, 1000), st.integers(1, 12), st.text("xyz\n", max_size=6)),
        max_size=4,
    ),
    st.booleans(),
)
def test_exact_unique_pairs_match_naive_replacement(
    text: str, cuts: list[tuple[int, int, str]], crlf: bool
) -> None:
    current = text
    pairs: list[Pair] = []
    for start, length, repl in cuts:
        if not current:
            break
        s = start % len(current)
        find = current[s : s + length]
        if not find or current.count(find) != 1 or "\r" in find:
            continue
        pairs.append(Pair(find, repl))
        current = current.replace(find, repl, 1)
    if crlf and "\n" in text:  # a file without line endings has no CRLF to keep
        text = text.replace("\n", "\r\n")
        current = current.replace("\n", "\r\n")
    try:
        out = apply_edits(text, pairs, path="p")
    except EditError:
        return  # a later pair that happens to match twice after normalisation
    if all(p.strategy in ("exact", "line_endings") for p in out.pairs):
        assert out.text == current
    assert apply_hunks(text, out.diff.hunks, [h.id for h in out.diff.hunks]) == out.text
