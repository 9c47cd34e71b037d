"""`karyi review`'s core: the change from git, reviewers in parallel over a fake model,
findings kept on the change, merged, and the budget."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from karyi.agent.code_review.changes import ChangeError, collect
from karyi.agent.code_review.findings import Finding, merge, reaches
from karyi.agent.code_review.runner import Budget, run_review
from karyi.agent.runtime import Runtime
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.review_model import Reviewers, calls, finding, git, project_with_change


@pytest.fixture
def repo(ws_root: Path) -> Path:
    return project_with_change(ws_root)


@pytest_asyncio.fixture
async def runtime(fake_llm: FakeModelServer, repo: Path) -> AsyncIterator[Runtime]:
    settings = Settings().with_values(model="openai:test-model", baseUrl=fake_llm.openai_url)
    rt = Runtime.open(repo, settings)
    yield rt
    await rt.aclose()


def test_the_uncommitted_change_with_untracked_files(repo: Path) -> None:
    (repo / "new.py").write_text("a = 1\nb = 2\n")
    (repo / ".karyi").mkdir()
    (repo / ".karyi" / ".gitignore").write_text("*\n!.gitignore\n")  # Karyi's own: not reviewed
    change = collect(repo)
    assert change.label == "uncommitted changes"
    assert change.lines == {"src/calc.py": [(2, 7)], "new.py": [(1, 2)]}
    assert "+def ratio(a, b):" in change.diff
    assert collect(repo, paths=[str(repo / "src")]).lines == {"src/calc.py": [(2, 7)]}
    assert git(repo, "status", "--porcelain") == " M src/calc.py\n?? .karyi/\n?? new.py\n"


def test_a_commit_and_a_branch_since_its_base(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "topic")
    git(repo, "commit", "-q", "-am", "second")
    assert collect(repo).empty
    assert collect(repo, commit="HEAD").lines == {"src/calc.py": [(2, 7)]}
    assert collect(repo, base="main").lines == {"src/calc.py": [(2, 7)]}
    first = collect(repo, commit="HEAD~1")
    assert first.lines["src/calc.py"] == [(1, 2)] and first.label.startswith("commit ")


def test_bad_input_is_one_sentence(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(ChangeError, match="--base: no commit named 'nope'"):
        collect(repo, base="nope")
    with pytest.raises(ChangeError, match="--commit: no commit named 'nope'"):
        collect(repo, commit="nope")
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    with pytest.raises(ChangeError, match="is not inside a git repository"):
        collect(elsewhere)


def test_a_removal_counts_as_the_line_after_it(repo: Path) -> None:
    (repo / "src" / "calc.py").write_text("def average(items):\n")
    assert collect(repo).lines == {"src/calc.py": [(2, 2)]}


def test_duplicates_merge_at_the_higher_severity() -> None:
    a = Finding("a.py", 3, 4, "warning", "Division by zero on empty list", "x", None, ("c",))
    b = Finding("a.py", 4, 4, "error", "Division by zero on an empty list", "y", "fix", ("s",))
    c = Finding("a.py", 4, 4, "info", "Name is unclear", "z", None, ("t",))
    merged = merge([a, b, c])
    assert [(f.severity, f.title, f.reviewers, f.suggestion) for f in merged] == [
        ("error", b.title, ("c", "s"), "fix"),
        ("info", "Name is unclear", ("t",), None),
    ]
    assert reaches(merged, "error") and reaches(merged, "warning")
    assert not reaches([c], "warning") and not reaches(merged, "never")


async def test_reviewers_in_parallel_keep_what_is_on_the_change(
    runtime: Runtime, fake_llm: FakeModelServer
) -> None:
    Reviewers(
        fake_llm,
        {
            "correctness": [
                calls(
                    finding("src/calc.py", 7, "error", "Division by zero when b is 0"),
                    finding("src/calc.py", 1, "info", "Docstring missing"),
                ),
                "Two problems.",
            ],
            "security": [
                calls(finding("src/calc.py", 7, "warning", "Division by zero when b is zero")),
                "One.",
            ],
            "tests": [calls(finding("src/nowhere.py", 1, "info", "No tests")), "None found."],
        },
    )
    review = await run_review(runtime, collect(runtime.workspace.root))
    assert [(f.path, f.line, f.severity, f.reviewers) for f in review.findings] == [
        ("src/calc.py", 1, "info", ("correctness",)),  # line 1 is within 3 of line 2
        ("src/calc.py", 7, "error", ("correctness", "security")),
    ]
    assert review.sorted.merged == 1 and review.sorted.dropped == 0
    assert {p.name: p.reports for p in review.passes} == {
        "correctness": 2,
        "security": 1,
        "tests": 1,  # a file that does not exist is a failed call, not a finding
    }
    assert all(p.stop_reason == "end_turn" for p in review.passes)
    assert review.tokens == 6 * (11 + 7)
    first = fake_llm.requests[0].body
    assert "report_finding" in first["messages"][0]["content"]
    assert "+def ratio(a, b):" in first["messages"][-1]["content"]


async def test_a_finding_off_the_change_is_dropped_and_counted(
    runtime: Runtime, fake_llm: FakeModelServer, repo: Path
) -> None:
    (repo / "src" / "calc.py").write_text("\n".join(f"x{i} = {i}" for i in range(1, 20)) + "\n")
    git(repo, "commit", "-qam", "long")
    text = (repo / "src" / "calc.py").read_text().replace("x18 = 18", "x18 = 1 / 0")
    (repo / "src" / "calc.py").write_text(text)
    Reviewers(
        fake_llm,
        {
            "correctness": [
                calls(
                    finding("src/calc.py", 18, "error", "Always raises"),
                    finding("src/calc.py", 3, "warning", "Unused name"),
                ),
                "Done.",
            ]
        },
    )
    review = await run_review(runtime, collect(repo), reviewers=_only("correctness"))
    assert [(f.line, f.title) for f in review.findings] == [(18, "Always raises")]
    assert review.sorted.dropped == 1


async def test_the_budget_stops_every_reviewer(runtime: Runtime, fake_llm: FakeModelServer) -> None:
    forever = [calls(finding("src/calc.py", 7, "error", "Zero"))] * 9
    Reviewers(fake_llm, {"correctness": forever, "security": forever, "tests": forever})
    review = await run_review(runtime, collect(runtime.workspace.root), budget=Budget(tokens=20))
    assert review.over_budget
    assert {p.stop_reason for p in review.passes} == {"cancelled"}
    assert review.to_dict()["budget"] == {"tokens": 20, "cost": None}


def _only(name: str):  # type: ignore[no-untyped-def]
    from karyi.agent.code_review.reviewers import REVIEWERS

    return [r for r in REVIEWERS if r.name == name]
