"""Many forms are scanned in groups and found exactly as one automaton finds them."""

from __future__ import annotations

import random

import pytest
from ahocorasick_rs import AhoCorasick, BytesAhoCorasick, MatchKind

from karyi.secrets.byte_stream import GROUP, Automaton


def _one(forms: list[str]) -> AhoCorasick:
    return AhoCorasick(forms, matchkind=MatchKind.LeftmostLongest)


@pytest.mark.parametrize("seed", range(40))
def test_grouped_forms_match_as_one_automaton_even_where_matches_overlap(seed: int) -> None:
    rnd = random.Random(seed)
    # A three-letter alphabet: forms overlap and nest everywhere, across groups too.
    count = rnd.randint(GROUP + 1, 4 * GROUP)
    forms = sorted({"".join(rnd.choices("abc", k=rnd.randint(2, 7))) for _ in range(count)})
    text = "".join(rnd.choices("abcx", k=400))
    grouped = Automaton(forms, AhoCorasick)
    assert grouped.find_matches_as_indexes(text) == _one(forms).find_matches_as_indexes(text)


def test_forms_that_never_overlap_in_the_text_need_no_second_scan() -> None:
    rnd = random.Random(1)
    forms = sorted({"".join(rnd.choices("0123456789abcdef", k=20)) for _ in range(150)})
    text = "log line\n".join(f"{forms[i]} and {forms[-i - 1]}\n" for i in range(30))
    grouped = Automaton(forms, AhoCorasick)
    found = grouped.find_matches_as_indexes(text)
    assert found == _one(forms).find_matches_as_indexes(text)
    assert len(found) == 60
    assert grouped._whole is None  # the groups agreed: no automaton over every form


def test_bytes_are_grouped_alike() -> None:
    forms = [f"secret-{i:03d}-value".encode() for i in range(200)]
    data = b"x" + b" ".join(forms[::7]) + b"secret-1"
    grouped = Automaton(forms, BytesAhoCorasick)
    one = BytesAhoCorasick(forms, matchkind=MatchKind.LeftmostLongest)
    assert grouped.find_matches_as_indexes(data) == one.find_matches_as_indexes(data)
