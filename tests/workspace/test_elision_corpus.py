"""The edit engine against a generated corpus of elided edits (issue "[lazy-edits]").

Every case (tests/support/elision_corpus.py) must come out `applied` (exactly the
expected text) or `refused` (EditError, nothing written); a case that expects REFUSE must
be refused. Anything else is `wrong`, and there must be none. Run with `pytest -s` to see
the table: per kind, how many were applied and how many refused.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import cache

import pytest

from karyi.workspace.edits import EditError, Pair, apply_edits
from karyi.workspace.elided_write import merge_write
from tests.support.elision_corpus import KINDS, REFUSE, ElisionCase, build_corpus

MIN_CASES = 500
MIN_APPLIED = 0.8
"""Of the cases that may apply, the share that must: refusing is safe, but an engine that
refuses every elision saves the model nothing."""


@dataclass(frozen=True)
class Result:
    """What the engine did with one case."""

    case: ElisionCase
    verdict: str  # "applied", "refused" or "wrong"
    got: str | None = None


def apply(case: ElisionCase) -> str:
    """The text the engine makes of the case; raises EditError when it refuses."""
    if case.mode == "write":
        return merge_write(case.original, case.replace, path=case.path).text
    return apply_edits(case.original, [Pair(case.find, case.replace)], path=case.path).text


def run_case(case: ElisionCase) -> Result:
    """Apply the case and judge the outcome against its expectation."""
    try:
        got = apply(case)
    except EditError:
        return Result(case, "refused")
    except Exception as exc:  # a crash is no safe refusal
        return Result(case, "wrong", f"raised {type(exc).__name__}: {exc}")
    if case.expected is not REFUSE and got == case.expected:
        return Result(case, "applied", got)
    return Result(case, "wrong", got)


@cache
def corpus() -> tuple[ElisionCase, ...]:
    """The corpus, built once per test session."""
    return tuple(build_corpus())


def table(rs: list[Result]) -> str:
    """Per kind: cases, how many expect REFUSE, applied / refused / wrong."""
    counts: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    refuse: Counter[str] = Counter()
    for r in rs:
        counts[r.case.kind][r.verdict] += 1
        refuse[r.case.kind] += r.case.expected is REFUSE
    head = f"{'kind':<27}{'cases':>6}{'REFUSE':>8}{'applied':>9}{'refused':>9}{'wrong':>7}"
    rows = [head]
    for kind, c in counts.items():
        rows.append(
            f"{kind:<27}{c.total():>6}{refuse[kind]:>8}{c['applied']:>9}{c['refused']:>9}"
            f"{c['wrong']:>7}"
        )
    total = Counter(r.verdict for r in rs)
    n = total.total()
    rows.append(
        f"{'all':<27}{n:>6}{refuse.total():>8}{total['applied']:>9}{total['refused']:>9}"
        f"{total['wrong']:>7}"
    )
    rows.append(
        f"applied {total['applied'] / n:.0%}, refused {total['refused'] / n:.0%} "
        f"(of the cases that may apply: {_applicable_share(rs):.0%} applied)"
    )
    return "\n".join(rows)


def _applicable_share(rs: list[Result]) -> float:
    could = [r for r in rs if r.case.expected is not REFUSE]
    return sum(r.verdict == "applied" for r in could) / max(1, len(could))


def _describe(r: Result) -> str:
    c = r.case
    got = r.got if r.got is None or r.got.startswith("raised") else "(a text, shown below)"
    return (
        f"{c.name} ({c.mode}): expected "
        f"{'REFUSE' if c.expected is REFUSE else 'the intended text'}, got {got}\n"
        f"  find:    {json.dumps(c.find)}\n  replace: {json.dumps(c.replace)}\n"
        f"  result:  {json.dumps(r.got)}"
    )


def test_the_corpus_covers_every_kind_and_three_languages() -> None:
    cases = corpus()
    per_kind = Counter(c.kind for c in cases)
    assert len(cases) >= MIN_CASES
    assert set(per_kind) == set(KINDS)
    assert min(per_kind.values()) >= 20, per_kind
    exts = {c.path.rsplit(".", 1)[-1] for c in cases}
    assert {"py", "js", "ts", "go"} <= exts
    assert any(c.path.startswith(("server/", "client-vscode/")) for c in cases)
    assert any(c.original is not None and "\r\n" in c.original for c in cases)


def test_the_corpus_is_deterministic() -> None:
    assert tuple(build_corpus()) == corpus()


def test_every_case_is_an_edit() -> None:
    for c in corpus():
        if c.mode == "pair":
            assert c.find != c.replace and c.original is not None, c.name
        if c.expected is not REFUSE:
            assert c.expected != c.original, c.name


def test_no_elided_edit_lands_wrong() -> None:
    rs = [run_case(c) for c in corpus()]
    print(f"\nelision corpus: {len(rs)} cases\n{table(rs)}")
    wrong = [r for r in rs if r.verdict == "wrong"]
    if wrong:
        pytest.fail(
            f"{len(wrong)} of {len(rs)} cases came out wrong:\n{table(rs)}\n\n"
            + "\n\n".join(_describe(r) for r in wrong[:8]),
            pytrace=False,
        )
    assert _applicable_share(rs) >= MIN_APPLIED, table(rs)
