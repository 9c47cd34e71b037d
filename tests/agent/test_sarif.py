"""A review as SARIF 2.1.0: valid against the official schema, with rules, levels,
messages, regions and fixes; the validation itself refuses a broken log."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from karyi.agent.code_review.changes import Change
from karyi.agent.code_review.findings import Finding, sort_out
from karyi.agent.code_review.runner import Budget, Pass, Review
from karyi.agent.code_review.sarif import to_sarif
from tests.support.sarif import validate_sarif


def _review() -> Review:
    change = Change("uncommitted changes", "", {"a.py": [(3, 5)], "b/c d.py": [(1, 1)]})
    found = [
        Finding(
            "a.py",
            4,
            5,
            "error",
            "Off by one",
            "The loop skips the last item.",
            "x\n",
            ("correctness",),
        ),
        Finding("b/c d.py", 1, 1, "info", "Unused import", "Nothing uses os.", None, ("security",)),
        Finding("a.py", 40, 40, "warning", "Far away", "Not on the change.", None, ("tests",)),
    ]
    return Review(
        change, sort_out(found, change), [Pass("correctness"), Pass("security")], Budget()
    )


def test_a_review_is_valid_sarif(tmp_path: Path) -> None:
    log = to_sarif(_review(), tmp_path)
    validate_sarif(log)
    run = log["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    first, second = run["results"]
    assert (first["ruleId"], first["ruleIndex"], first["level"]) == ("correctness", 0, "error")
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "a.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 4, "endLine": 5},
    }
    assert first["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"] == {
        "text": "x\n"
    }
    assert (second["ruleId"], second["level"]) == ("security", "note")
    assert second["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "b/c%20d.py"
    assert run["properties"]["dropped"] == 1


def test_the_schema_refuses_a_broken_log(tmp_path: Path) -> None:
    log = to_sarif(_review(), tmp_path)
    broken = copy.deepcopy(log)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(AssertionError, match="runs/0/results/0/level"):
        validate_sarif(broken)
    del broken["version"]
    with pytest.raises(AssertionError, match="'version' is a required property"):
        validate_sarif(broken)
