"""The three-way merge that rebases an agent's edit onto what the user typed meanwhile.

The properties: a merge never duplicates or loses a line, keeps both sides' order, and
refuses (None) rather than guess where the two sides touch the same place.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from karyi.workspace.merge import rebase


def text(*lines: str) -> str:
    return "".join(f"{line}\n" for line in lines)


def test_trivial_sides() -> None:
    base, new, mine = text("a", "b"), text("a", "X", "b"), text("a", "b", "c")
    assert rebase(base, new, base) == new
    assert rebase(base, base, mine) == mine
    assert rebase(base, new, new) == new


def test_changes_apart_both_land() -> None:
    base = text("a", "b", "c", "d", "e")
    new = text("a", "B", "c", "d", "e")  # the agent changes b
    mine = text("a", "b", "c", "d", "E")  # the user changes e
    assert rebase(base, new, mine) == text("a", "B", "c", "d", "E")


def test_the_same_insertion_on_both_sides_is_not_made_twice() -> None:
    base = text("a", "b", "c", "d")
    new = text("a", "X", "b", "c", "D")
    mine = text("a", "X", "b", "c", "d", "e")
    assert rebase(base, new, mine) == text("a", "X", "b", "c", "D", "e")
    # Only partly alike: the user appended c, the agent c and Y.
    assert rebase(text("a", "b"), text("a", "b", "c", "Y"), text("a", "b", "c")) is None


def test_the_same_replacement_on_both_sides_is_not_made_twice() -> None:
    base = text("a", "b", "c", "d")
    new = text("a", "B", "c", "D")
    mine = text("a", "B", "c", "d")
    assert rebase(base, new, mine) == text("a", "B", "c", "D")


def test_insertions_at_one_place_conflict() -> None:
    base = text("a", "b")
    assert rebase(base, text("a", "X", "b"), text("a", "Y", "b")) is None


def test_an_insertion_beside_a_changed_line_conflicts() -> None:
    base = text("a", "b", "c")
    assert rebase(base, text("a", "b", "X", "c"), text("a", "B", "c")) is None
    assert rebase(base, text("a", "X", "b", "c"), text("a", "B", "c")) is None


def test_insertions_at_the_ends_of_a_file_the_user_extended_conflict() -> None:
    base = text("a", "b")
    assert rebase(base, text("X", "a", "b"), text("Y", "a", "b")) is None
    assert rebase(base, text("a", "b", "X"), text("a", "b", "Y")) is None
    assert rebase(base, text("X", "a", "b"), text("a", "b", "Y")) == text("X", "a", "b", "Y")


def test_overlapping_replacements_conflict() -> None:
    base = text("a", "b", "c")
    assert rebase(base, text("a", "X", "c"), text("a", "Y", "c")) is None


def test_an_empty_base() -> None:
    assert rebase("", text("x"), text("y")) is None
    assert rebase("", text("x"), "") == text("x")


# -- properties over unique lines --------------------------------------------------------


def _edit(draw: st.DrawFn, base: list[str], tag: str) -> tuple[list[str], set[str]]:
    """A random edit of `base`: some lines deleted, new ones (tagged) inserted."""
    out: list[str] = []
    deleted: set[str] = set()
    count = 0
    for line in [*base, None]:
        for _ in range(draw(st.integers(0, 2)) if draw(st.booleans()) else 0):
            out.append(f"{tag}{count}")
            count += 1
        if line is None:
            break
        if draw(st.integers(0, 5)) == 0:
            deleted.add(line)
        else:
            out.append(line)
    return out, deleted


@st.composite
def _three_sides(draw: st.DrawFn) -> tuple[list[str], list[str], set[str], list[str], set[str]]:
    base = [f"b{i}" for i in range(draw(st.integers(0, 12)))]
    new, agent_deleted = _edit(draw, base, "a")
    mine, user_deleted = _edit(draw, base, "u")
    return base, new, agent_deleted, mine, user_deleted


def _in_order(sub: list[str], whole: list[str]) -> bool:
    it = iter(whole)
    return all(line in it for line in sub)


@settings(max_examples=400, deadline=None)
@given(_three_sides())
def test_a_merge_never_loses_or_duplicates_a_line(
    sides: tuple[list[str], list[str], set[str], list[str], set[str]],
) -> None:
    base, new, agent_deleted, mine, _ = sides
    merged = rebase(text(*base), text(*new), text(*mine))
    if merged is None:
        return
    lines = merged.splitlines()
    assert len(lines) == len(set(lines)), f"a line was duplicated: {lines}"
    added = {line for line in new if line.startswith("a")}
    assert set(lines) == ({line for line in mine if line not in agent_deleted} | added)
    assert _in_order([line for line in mine if line not in agent_deleted], lines)
    assert _in_order([line for line in new if line in set(lines)], lines)


@settings(max_examples=200, deadline=None)
@given(st.integers(3, 12), st.data())
def test_edits_two_lines_apart_always_merge(size: int, data: st.DataObject) -> None:
    base = [f"b{i}" for i in range(size)]
    mine_at = data.draw(st.integers(0, size - 3))
    agent_at = data.draw(st.integers(mine_at + 2, size - 1))
    mine = [*base[:mine_at], "u0", *base[mine_at + 1 :]]
    new = [*base[:agent_at], "a0", "a1", *base[agent_at + 1 :]]
    both = [*base[:mine_at], "u0", *base[mine_at + 1 : agent_at], "a0", "a1"]
    assert rebase(text(*base), text(*new), text(*mine)) == text(*both, *base[agent_at + 1 :])
