"""The edit engine: exact matches, every fallback layer, refusals, CRLF, diffs and hunks."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karyi.workspace import edits, patched
from karyi.workspace.diffs import apply_hunks
from karyi.workspace.edits import EditError, EditOutcome, Pair, apply_edits
from karyi.workspace.patched import FindIndex


def edit(text: str | None, *pairs: tuple[str, str] | Pair) -> EditOutcome:
    return apply_edits(text, [p if isinstance(p, Pair) else Pair(*p) for p in pairs], path="f.py")


def refused(text: str | None, *pairs: tuple[str, str] | Pair) -> EditError:
    with pytest.raises(EditError) as info:
        edit(text, *pairs)
    return info.value


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


# -- fallback layers, in order -------------------------------------------------------------


def test_fallback_line_endings_lf_find_in_crlf_file_keeps_crlf() -> None:
    out = edit("a\r\nb\r\nc\r\n", ("a\nb", "A\nB\nB2"))
    assert out.pairs[0].strategy == "line_endings"
    assert out.text == "A\r\nB\r\nB2\r\nc\r\n"


def test_fallback_line_endings_crlf_find_in_lf_file() -> None:
    out = edit("a\nb\n", ("a\r\nb", "x\r\ny"))
    assert out.pairs[0].strategy == "line_endings"
    assert out.text == "x\ny\n"


def test_crlf_find_in_crlf_file_is_exact_and_round_trips() -> None:
    original = "one\r\ntwo\r\nthree\r\n"
    out = edit(original, ("two\r\n", "2\r\n"))
    assert out.pairs[0].strategy == "exact"
    assert out.text == "one\r\n2\r\nthree\r\n"
    assert apply_hunks(original, out.diff.hunks, ["h1"]) == out.text
    assert out.diff.edits[0].new_text == "2"


def test_fallback_trailing_whitespace() -> None:
    out = edit("def f():  \n    pass\t\n", ("def f():\n    pass", "def g():\n    pass"))
    assert out.pairs[0].strategy == "trailing_whitespace"
    assert out.text == "def g():\n    pass\n"


def test_fallback_trimmed_lines_keeps_the_first_lines_indentation() -> None:
    text = "class A:\n    def f(self):\n        return 1\n"
    out = edit(text, ("\tdef f(self):\n        return 1", "\tdef g(self):\n        return 2"))
    assert out.pairs[0].strategy == "trimmed_lines"
    assert out.text == "class A:\n    def g(self):\n        return 2\n"


def test_fallback_indentation_shift_reindents_the_replacement() -> None:
    text = "class A:\n    def f(self):\n        if x:\n            return 1\n"
    find = "def f(self):\n    if x:\n        return 1"
    repl = "def f(self):\n    if y:\n        return 2"
    out = edit(text, (find, repl))
    assert out.pairs[0].strategy == "indentation"
    assert out.text == "class A:\n    def f(self):\n        if y:\n            return 2\n"


def test_fallback_indentation_shift_removing_indentation() -> None:
    text = "def f():\n    return 1\n"
    out = edit(text, ("    def f():\n        return 1", "    def g():\n        return 2"))
    assert out.pairs[0].strategy == "indentation"
    assert out.text == "def g():\n    return 2\n"


def test_fallback_unescaped_text() -> None:
    text = 'print("a\\n")\nx = "q"\n'
    out = edit(text, ('print(\\"a\\\\n\\")', 'print(\\"b\\\\n\\")'))
    assert out.pairs[0].strategy == "unescaped"
    assert out.text == 'print("b\\n")\nx = "q"\n'


def test_fallback_over_escaped_newlines() -> None:
    out = edit("a = 1\nb = 2\n", ("a = 1\\nb = 2", "a = 3\\nb = 4"))
    assert out.pairs[0].strategy == "unescaped"
    assert out.text == "a = 3\nb = 4\n"


def test_fallback_tokens_ignores_spacing_between_tokens() -> None:
    out = edit("result = compute( a,b )\n", ("result = compute(a, b)", "result = go(a, b)"))
    assert out.pairs[0].strategy == "tokens"
    assert out.text == "result = go(a, b)\n"


def test_tokens_never_join_two_words() -> None:
    err = refused("returnx\n", ("return x", "y"))
    assert err.kind == "no_match"


def test_fallback_similar_for_a_nearly_identical_block() -> None:
    text = (
        "def load(path):\n"
        "    with open(path) as fh:\n"
        "        data = fh.read()\n"
        "    return parse(data)\n"
        "\nother()\n"
    )
    find = (
        "def load(path):\n"
        "    with open(path) as fh:\n"
        "        data = fh.read()  \n"
        "    return parse(data))\n"
    )
    repl = "def load(path):\n    return parse(open(path).read())\n"
    out = edit(text, (find, repl))
    assert out.pairs[0].strategy == "similar"
    assert out.pairs[0].similarity >= 0.92
    assert out.text == "def load(path):\n    return parse(open(path).read())\n\nother()\n"


def test_similarity_never_applies_to_short_finds() -> None:
    err = refused("value_1 = compute(item_1)\n", ("value_2 = compute(item_1)", "x"))
    assert err.kind == "no_match"


def test_similar_blocks_twice_are_ambiguous() -> None:
    block = "def a():\n    one = 1\n    two = 2\n    three = 3\n"
    text = block + "\n" + block.replace("a()", "b()") + "\n"
    err = refused(text, ("def c():\n    one = 1\n    two = 2\n    three = 3\n", "x"))
    assert err.kind == "ambiguous" and err.strategy == "similar"
    assert err.lines == (1, 6)


def test_fallback_ambiguity_is_refused_too() -> None:
    err = refused("x = 1  \nx = 1\t\n", ("x = 1\n", "y\n"))
    assert err.kind == "ambiguous" and err.strategy == "trailing_whitespace"


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


# -- the engine against a naive model of it ---------------------------------------------------

LINES = st.sampled_from(["alpha\n", "beta\n", "gamma delta\n", "\n", "  indented\n", "x"])


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


# -- one pass for many finds (FindIndex) against a scan per find ---------------------------


def outcome(text: str, pairs: list[Pair]) -> object:
    """What the engine answers, comparable: the result or the refusal."""
    try:
        out = apply_edits(text, pairs, path="p")
    except EditError as err:
        return ("refused", err.kind, err.message, err.lines)
    return (out.text, out.pairs, out.diff.unified)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(LINES, min_size=1, max_size=30).map("".join),
    st.lists(
        st.tuples(
            st.integers(0, 1000),
            st.integers(1, 10),
            st.text("xyza\n😀", max_size=6),
            st.booleans(),
        ),
        min_size=3,
        max_size=8,
    ),
    st.booleans(),
)
def test_one_pass_for_many_finds_answers_as_a_scan_per_find_does(
    text: str, cuts: list[tuple[int, int, str, bool]], crlf: bool
) -> None:
    if crlf:
        text = text.replace("\n", "\r\n")
    pairs = []
    for start, length, repl, from_text in cuts:
        s = start % len(text)
        find = text[s : s + length] if from_text else repl[::-1] or "a"
        pairs.append(Pair(find, repl))
    one_pass = outcome(text, pairs)
    with patch.object(edits, "FIND_INDEX_MIN", 10**9):
        assert outcome(text, pairs) == one_pass


def test_many_one_line_finds_see_each_others_replacements() -> None:
    text = "".join(f"item_{i} = {i}\n" for i in range(50))
    out = edit(
        text,
        ("item_3 = 3", "item_3 = 😀 + 30"),
        ("😀 + 3", "THREE"),  # only inside the first pair's replacement
        ("item_7 = 7", "item_7 = 70"),
        ("item_49 = 49", "last = 49"),
    )
    assert "item_3 = THREE0\n" in out.text and "item_7 = 70\n" in out.text
    assert out.text.endswith("last = 49\n")
    assert [p.first_line for p in out.pairs] == [4, 4, 8, 50]


def test_many_one_line_finds_still_refuse_an_ambiguous_one() -> None:
    text = "".join(f"v{i} = 0\n" for i in range(10)) + "v1 = 0\n"
    err = refused(text, ("v3 = 0", "v3 = 1"), ("v5 = 0", "v5 = 1"), ("v1 = 0", "v1 = 1"))
    assert err.kind == "ambiguous" and err.pair == 3 and err.lines == (2, 11)


def test_finds_too_common_for_one_pass_fall_back_to_a_scan_each() -> None:
    text = "ab" * (patched.MAX_FIND_HITS + 10) + "\nend\n"
    assert FindIndex.build(text, ["a", "b", "end"], 1000) is None
    out = edit(text, ("end", "END"), ("\nEND", "\nfin"), ("fin\n", "fin!\n"))
    assert out.text.endswith("\nfin!\n")


def test_a_find_at_the_match_limit_counts_like_a_scan() -> None:
    # 1001 x's, one of them inside text the first pair replaces: 1000 valid matches
    text = "yx" + " x" * 1000
    pairs = [Pair("yx", "yz"), Pair("x", "w", expected=1000), Pair(" w\n", " w.\n")]
    one_pass = outcome(text + "\n", pairs)
    with patch.object(edits, "FIND_INDEX_MIN", 10**9):
        assert outcome(text + "\n", pairs) == one_pass
    assert isinstance(one_pass, tuple) and one_pass[0] == "yz" + " w" * 999 + " w.\n"
