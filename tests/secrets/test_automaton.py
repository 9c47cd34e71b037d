"""Many forms are scanned in groups and found exactly as one automaton finds them."""

from __future__ import annotations

import random

import pytest
from ahocorasick_rs import BytesAhoCorasick, MatchKind

from karyi.secrets.byte_stream import GROUP, Automaton
from karyi.secrets.redact import Redactor


def _one(forms: list[bytes]) -> BytesAhoCorasick:
    return BytesAhoCorasick(forms, matchkind=MatchKind.LeftmostLongest)


@pytest.mark.parametrize("seed", range(40))
def test_grouped_forms_match_as_one_automaton_even_where_matches_overlap(seed: int) -> None:
    rnd = random.Random(seed)
    # A small alphabet: forms overlap and nest everywhere, across groups too.
    alphabet = rnd.choice(["abc", "abcdefgh"])
    count = rnd.randint(GROUP + 1, 4 * GROUP)
    forms = sorted(
        {"".join(rnd.choices(alphabet, k=rnd.randint(2, 9))).encode() for _ in range(count)}
    )
    data = "".join(rnd.choices(alphabet + "xyz", k=400)).encode()
    grouped = Automaton(forms, BytesAhoCorasick)
    assert grouped.find_matches_as_indexes(data) == _one(forms).find_matches_as_indexes(data)


def test_forms_that_never_overlap_in_the_output_need_no_second_scan() -> None:
    rnd = random.Random(1)
    forms = sorted({"".join(rnd.choices("0123456789abcdef", k=20)).encode() for _ in range(150)})
    data = b"log line\n".join(forms[i] + b" and " + forms[-i - 1] + b"\n" for i in range(30))
    grouped = Automaton(forms, BytesAhoCorasick)
    found = grouped.find_matches_as_indexes(data)
    assert found == _one(forms).find_matches_as_indexes(data)
    assert len(found) == 60
    assert grouped._whole is None  # the groups agreed: no automaton over every form


def test_ascii_and_other_text_are_redacted_alike() -> None:
    """ASCII text is scanned as bytes; text with other characters as text."""
    secrets = {f"S{i}": f"value-{i:02d}-{'x' * 12}" for i in range(20)}
    redactor = Redactor(secrets)
    line = "got value-07-xxxxxxxxxxxx and dmFsdWUtMDcteHh4eHh4eHh4eHh4 then value-1"
    assert redactor.redact(line) == "got $KARYI{S7} and $KARYI{S7} then value-1"
    assert redactor.redact("é " + line) == "é got $KARYI{S7} and $KARYI{S7} then value-1"
