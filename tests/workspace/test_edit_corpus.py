"""The edit engine against a generated corpus of slipped edits (issue "[edit-trust]").

An edit lands exactly as meant or not at all: every case (tests/support/edit_corpus.py)
must come out `correct` (the expected text) or `refused` (EditError), and a case that
expects REFUSE must be refused. Any other text is `wrong`. Refusing is always safe, but
for the slips the engine exists to forgive it may refuse only rarely
(`MIN_CORRECT_RATE`). Run with `pytest -s` to see the table per slip kind.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from dataclasses import dataclass
from functools import cache

import pytest

from karyi.workspace.edits import EditError, Pair, apply_edits
from tests.support.edit_corpus import KINDS, REFUSE, REFUSE_KINDS, Case, build_corpus

MIN_CASES = 1000
MIN_KINDS = 8
MIN_PER_KIND = 80

MIN_CORRECT_RATE: dict[str, float] = {
    "exact": 1.0,
    "inner_spaces": 0.9,
    "tab_for_space_inside": 0.9,
    "indent_tabs_vs_spaces": 0.9,
    "block_shift": 0.9,
    "first_line_unindented": 0.9,
    "trailing_whitespace": 0.9,
    "line_endings": 0.9,
    "over_escaped": 0.9,
    "missing_blank_line": 0.0,
}
"""The share of a kind's cases that must come out correct (the rest may be refused).

A missing blank line may always be refused: the find does not match the file line for
line, so landing it (with the blank line kept) is a courtesy, never a duty."""

WRONG_SHOWN = 12
"""How many wrong cases the failure shows (at most two per kind)."""


@dataclass(frozen=True)
class Result:
    """What the engine did with one case."""

    case: Case
    verdict: str  # "correct", "refused" or "wrong"
    got: str | None = None
    """The text the engine produced (None when it raised)."""
    error: str = ""


def run_case(case: Case) -> Result:
    """Apply the case's pair and judge the outcome against its expectation."""
    try:
        out = apply_edits(case.original, [Pair(case.find, case.replace)], path=case.path)
    except EditError:
        return Result(case, "refused")
    except Exception as exc:  # a crash is no safe refusal
        return Result(case, "wrong", error=f"raised {type(exc).__name__}: {exc}")
    if case.expected is not REFUSE and out.text == case.expected:
        return Result(case, "correct", out.text)
    return Result(case, "wrong", out.text)


@cache
def corpus() -> tuple[Case, ...]:
    """The corpus, built once per test session."""
    return tuple(build_corpus())


@cache
def results() -> tuple[Result, ...]:
    """Every case run through the engine, once per test session."""
    return tuple(run_case(c) for c in corpus())


def _lines(text: str) -> list[str]:
    return [json.dumps(ln, ensure_ascii=False) + "\n" for ln in text.splitlines(keepends=True)]


def describe(result: Result) -> str:
    """The case, what the model wrote, and a diff of the expected text against the result."""
    case = result.case
    head = [
        f"{case.name}",
        f"  find:    {json.dumps(case.find, ensure_ascii=False)}",
        f"  replace: {json.dumps(case.replace, ensure_ascii=False)}",
    ]
    if result.error:
        return "\n".join([*head, f"  {result.error}"])
    if case.expected is REFUSE:
        change = "no change" if result.got == case.original else "a change"
        diff = difflib.unified_diff(_lines(case.original), _lines(result.got or ""), n=1)
        head.append(f"  expected REFUSE, the engine wrote {change}:")
    else:
        head.append("  expected (-) against the engine's text (+), lines as JSON strings:")
        diff = difflib.unified_diff(_lines(case.expected), _lines(result.got or ""), n=1)
    body = [f"    {ln.rstrip()}" for ln in list(diff)[2:]]
    return "\n".join(head + body[:16])


def table(rs: tuple[Result, ...]) -> str:
    """Counts per slip kind: cases, expectation, correct / refused / wrong."""
    counts: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    for r in rs:
        counts[r.case.kind][r.verdict] += 1
    rows = [f"{'kind':<24}{'expects':>8}{'cases':>7}{'correct':>9}{'refused':>9}{'wrong':>7}"]
    for kind, c in counts.items():
        expects = "REFUSE" if kind in REFUSE_KINDS else "text"
        rows.append(
            f"{kind:<24}{expects:>8}{c.total():>7}{c['correct']:>9}{c['refused']:>9}{c['wrong']:>7}"
        )
    total = Counter(r.verdict for r in rs)
    rows.append(
        f"{'all':<24}{'':>8}{total.total():>7}{total['correct']:>9}{total['refused']:>9}"
        f"{total['wrong']:>7}"
    )
    return "\n".join(rows)


# -- the corpus itself -----------------------------------------------------------------------


def test_the_corpus_is_large_and_covers_every_kind() -> None:
    cases = corpus()
    per_kind = Counter(c.kind for c in cases)
    assert len(cases) >= MIN_CASES
    assert len(per_kind) >= MIN_KINDS
    assert min(per_kind.values()) >= MIN_PER_KIND, per_kind
    assert set(MIN_CORRECT_RATE) | REFUSE_KINDS == set(KINDS)
    assert len({(c.path, c.find, c.replace) for c in cases}) == len(cases)


def test_the_corpus_is_deterministic() -> None:
    assert tuple(build_corpus()) == corpus()


def test_the_corpus_covers_the_file_styles() -> None:
    originals = {c.original for c in corpus()}
    assert any("\r\n" in t for t in originals)
    assert any(t.startswith("\ufeff") for t in originals)
    assert any(not t.endswith("\n") for t in originals)
    assert any("\u0301" in t and "\u200d" in t for t in originals)
    paths = {c.path.rsplit(".", 1)[-1] for c in corpus()}
    assert {"py", "js", "ts", "go", "c", "rs", "java", "yml", "yaml", "Makefile"} <= paths


def test_every_expected_text_is_the_intended_change_of_a_unique_region() -> None:
    """The expectations do not depend on the slips: the region as it is in the file occurs
    once, and replacing it with the intended lines gives the expected text."""
    for c in corpus():
        assert c.find != c.replace, c.name
        if c.expected is REFUSE:
            assert c.original.count(c.intended_find) >= 1, c.name
            continue
        assert c.original.count(c.intended_find) == 1, c.name
        assert c.original.replace(c.intended_find, c.intended_replace) == c.expected, c.name
        assert c.expected != c.original, c.name
        if c.kind == "exact":
            assert (c.find, c.replace) == (c.intended_find, c.intended_replace), c.name
        else:
            assert c.find != c.intended_find, c.name


def _squeezed(text: str) -> str:
    return "".join(text.split())


def test_whitespace_slips_differ_from_the_intent_only_in_whitespace() -> None:
    whitespace_only = MIN_CORRECT_RATE.keys() - {"exact", "over_escaped", "missing_blank_line"}
    for c in corpus():
        if c.kind in whitespace_only:
            assert _squeezed(c.find) == _squeezed(c.intended_find), c.name
            assert _squeezed(c.replace) == _squeezed(c.intended_replace), c.name
        if c.kind == "over_escaped":
            assert "\n" not in c.find and "\n" not in c.replace, c.name
            assert json.loads(f'"{c.find}"') == c.intended_find.replace("\r\n", "\n"), c.name
        if c.kind == "misremembered_line":
            assert _squeezed(c.find) != _squeezed(c.intended_find), c.name


# -- the engine on the corpus ----------------------------------------------------------------


def test_the_engine_lands_every_slipped_edit_exactly_or_refuses_it() -> None:
    rs = results()
    print(f"\nedit corpus: {len(rs)} cases\n{table(rs)}")
    wrong = [r for r in rs if r.verdict == "wrong"]
    shown: list[Result] = []
    per_kind: Counter[str] = Counter()
    for r in wrong:
        if per_kind[r.case.kind] < 2 and len(shown) < WRONG_SHOWN:
            shown.append(r)
            per_kind[r.case.kind] += 1
    if wrong:
        pytest.fail(
            f"{len(wrong)} of {len(rs)} cases came out wrong:\n{table(rs)}\n\n"
            + "\n\n".join(describe(r) for r in shown),
            pytrace=False,
        )


@pytest.mark.parametrize("kind", sorted(MIN_CORRECT_RATE))
def test_forgivable_slips_are_rarely_refused(kind: str) -> None:
    rs = [r for r in results() if r.case.kind == kind]
    verdicts = Counter(r.verdict for r in rs)
    refused = [r.case.name for r in rs if r.verdict == "refused"]
    if verdicts["correct"] < MIN_CORRECT_RATE[kind] * len(rs):
        pytest.fail(
            f"{kind}: {verdicts['correct']} of {len(rs)} correct (at least "
            f"{MIN_CORRECT_RATE[kind]:.0%} must be), {verdicts['refused']} refused, "
            f"{verdicts['wrong']} wrong; the first refused: " + "; ".join(refused[:5]),
            pytrace=False,
        )
