"""One pass for many finds (FindIndex) answers as a scan per find does."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from karyi.workspace import edits, patched
from karyi.workspace.edits import EditError, Pair, apply_edits
from karyi.workspace.patched import FindIndex
from tests.support.edit_calls import LINES, edit, refused

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
