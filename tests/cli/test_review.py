"""`karyi review` as CI runs it: a real process, a fake model answering each reviewer,
a real git repository; every exit status, the text, JSON and SARIF reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fake_model_server import FakeModelServer
from tests.support.review_model import Reviewers, calls, finding, git, project_with_change
from tests.support.sarif import validate_sarif


def review(root: Path, fake: FakeModelServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "KARYI_BASE_URL": fake.openai_url}
    return subprocess.run(
        [sys.executable, "-m", "karyi", "review", "--model", "openai:m", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.fixture
def repo(ws_root: Path) -> Path:
    return project_with_change(ws_root)


ERROR_AND_INFO = {
    "correctness": [
        calls(
            finding("src/calc.py", 7, "error", "Division by zero when b is 0", suggestion="x"),
            finding("README.md", 1, "warning", "Title is vague"),  # not changed: dropped
        ),
        "Done.",
    ],
    "security": [calls(finding("src/calc.py", 7, "error", "Division by zero if b is 0")), "Ok."],
    "tests": [calls(finding("src/calc.py", 6, "info", "ratio has no test")), "Ok."],
}


def test_text_grouped_by_file_and_exit_1_on_an_error(repo: Path, fake_llm: FakeModelServer) -> None:
    Reviewers(fake_llm, ERROR_AND_INFO)
    proc = review(repo, fake_llm)
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert out.startswith("src/calc.py\n")
    assert "  6: info ratio has no test (tests)" in out
    assert "  7: error Division by zero when b is 0 (correctness, security)" in out
    assert "      7 │     return a / b" in out and "    + x" in out
    assert "README.md" not in out
    assert "2 finding(s) (1 error, 1 info) · 1 dropped off the change · 1 merged" in out
    assert "3 reviewer(s) · 108 of 400,000 tokens" in out
    assert "\x1b[" not in out  # no colour in a pipe
    assert "karyi review · uncommitted changes · 1 file(s)" in proc.stderr


def test_fail_on_warning_and_never(repo: Path, fake_llm: FakeModelServer) -> None:
    only_info = {"tests": [calls(finding("src/calc.py", 6, "info", "ratio has no test")), "Ok."]}
    Reviewers(fake_llm, only_info)
    assert review(repo, fake_llm, "--fail-on", "warning").returncode == 0
    Reviewers(fake_llm, ERROR_AND_INFO)
    assert review(repo, fake_llm, "--fail-on", "never").returncode == 0
    Reviewers(fake_llm, ERROR_AND_INFO)
    assert review(repo, fake_llm, "--fail-on", "warning").returncode == 1


def test_sarif_validates_against_the_official_schema(
    repo: Path, fake_llm: FakeModelServer, tmp_path: Path
) -> None:
    Reviewers(fake_llm, ERROR_AND_INFO)
    out = tmp_path / "review.sarif"
    proc = review(repo, fake_llm, "--format", "sarif", "--output", str(out))
    assert proc.returncode == 1 and proc.stdout == ""
    log = json.loads(out.read_text())
    validate_sarif(log)
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["correctness", "security", "tests"]
    results = [
        (r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in run["results"]
    ]
    assert results == [("tests", "note", 6), ("correctness", "error", 7)]
    assert run["results"][1]["message"]["text"].startswith("Division by zero when b is 0\n")
    assert "1 dropped off the change" in proc.stderr


def test_json_report(repo: Path, fake_llm: FakeModelServer) -> None:
    Reviewers(fake_llm, ERROR_AND_INFO)
    proc = review(repo, fake_llm, "--format", "json", "--fail-on", "never")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [f["title"] for f in report["findings"]] == [
        "ratio has no test",
        "Division by zero when b is 0",
    ]
    assert report["dropped"] == 1 and report["merged"] == 1 and report["tokens"] == 108
    assert {r["name"]: r["reports"] for r in report["reviewers"]} == {
        "correctness": 2,
        "security": 1,
        "tests": 1,
    }


def test_nothing_to_review(repo: Path, fake_llm: FakeModelServer) -> None:
    git(repo, "commit", "-qam", "done")
    proc = review(repo, fake_llm)
    assert proc.returncode == 0 and fake_llm.requests == []
    assert proc.stderr == "nothing to review: no changed lines in the uncommitted changes\n"
    sarif = review(repo, fake_llm, "--format", "sarif")
    assert sarif.returncode == 0
    validate_sarif(json.loads(sarif.stdout))


def test_a_commit_and_paths(repo: Path, fake_llm: FakeModelServer) -> None:
    git(repo, "commit", "-qam", "second")
    Reviewers(fake_llm, {"tests": [calls(finding("src/calc.py", 6, "info", "No test")), "Ok."]})
    proc = review(repo, fake_llm, "--commit", "HEAD", "src")
    assert proc.returncode == 0 and "  6: info No test (tests)" in proc.stdout
    none = review(repo, fake_llm, "--commit", "HEAD", "README.md")
    assert none.returncode == 0 and "nothing to review" in none.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--base", "nope"], "karyi: error: --base: no commit named 'nope'"),
        (["--commit", "nope"], "karyi: error: --commit: no commit named 'nope'"),
        (["--format", "xml"], "karyi review: error: argument --format: invalid choice: 'xml'"),
        (["--base", "main", "--commit", "HEAD"], "not allowed with argument --base"),
        (["--fail-on", "fatal"], "argument --fail-on: invalid choice: 'fatal'"),
        (["--bogus"], "karyi review: error: unrecognized arguments: --bogus"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    repo: Path, fake_llm: FakeModelServer, args: list[str], said: str
) -> None:
    proc = review(repo, fake_llm, *args)
    assert proc.returncode == 2
    assert said in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


def test_not_a_git_repository(tmp_path: Path, fake_llm: FakeModelServer) -> None:
    proc = review(tmp_path, fake_llm)
    assert proc.returncode == 2
    assert proc.stderr == f"karyi: error: {tmp_path} is not inside a git repository\n"
