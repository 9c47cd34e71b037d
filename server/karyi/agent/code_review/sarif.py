"""A review as SARIF 2.1.0, the format code scanning reads (docs/review.md#in-ci).

One run whose driver is Karyi review; one rule per reviewer (the first reviewer of a
merged finding names its rule); one result per finding with its level, message and
region, relative to the repository root (`%SRCROOT%`), and its suggestion as a fix.
`tests/agent/test_sarif.py` validates the output against the official schema.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any
from urllib.parse import quote

from karyi import __version__
from karyi.agent.code_review.findings import Finding
from karyi.agent.code_review.reviewers import REVIEWERS
from karyi.agent.code_review.runner import Review

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def to_sarif(review: Review, root: Path) -> dict[str, Any]:
    """The review as a SARIF log with one run."""
    focus = {r.name: r.focus for r in REVIEWERS}
    names = list(dict.fromkeys([p.name for p in review.passes] + _first_reviewers(review)))
    rules = [
        {
            "id": name,
            "name": name.capitalize(),
            "shortDescription": {"text": f"Karyi's {name} reviewer"},
            "fullDescription": {"text": focus.get(name, f"Karyi's {name} reviewer")},
        }
        for name in names
    ]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "Karyi review",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": root.resolve().as_uri() + "/"}},
                "results": [_result(f, names) for f in review.findings],
                "properties": {
                    "change": review.change.label,
                    "dropped": review.sorted.dropped,
                    "merged": review.sorted.merged,
                    "tokens": review.tokens,
                    "overBudget": review.over_budget,
                },
            }
        ],
    }


def _first_reviewers(review: Review) -> list[str]:
    return [f.reviewers[0] if f.reviewers else "review" for f in review.findings]


def _result(finding: Finding, rules: list[str]) -> dict[str, Any]:
    rule = finding.reviewers[0] if finding.reviewers else "review"
    location = {"uri": quote(finding.path), "uriBaseId": "%SRCROOT%"}
    region = {"startLine": finding.line, "endLine": finding.end_line}
    out: dict[str, Any] = {
        "ruleId": rule,
        "ruleIndex": rules.index(rule),
        "level": LEVELS.get(finding.severity, "note"),
        "message": {"text": f"{finding.title}\n\n{finding.body}"},
        "locations": [{"physicalLocation": {"artifactLocation": location, "region": region}}],
        "partialFingerprints": {"karyiFinding/v1": _fingerprint(finding)},
        "properties": {"reviewers": list(finding.reviewers), "title": finding.title},
    }
    if finding.suggestion is not None:
        out["fixes"] = [
            {
                "description": {"text": finding.title},
                "artifactChanges": [
                    {
                        "artifactLocation": location,
                        "replacements": [
                            {
                                "deletedRegion": {
                                    "startLine": finding.line,
                                    "startColumn": 1,
                                    "endLine": finding.end_line + 1,
                                    "endColumn": 1,
                                },
                                "insertedContent": {"text": finding.suggestion},
                            }
                        ],
                    }
                ],
            }
        ]
    return out


def _fingerprint(finding: Finding) -> str:
    """Stable across runs for the same problem in the same file (code scanning matches
    alerts by it), whatever line it moved to."""
    key = f"{finding.path}\0{finding.title.casefold()}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
