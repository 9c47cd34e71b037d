"""Findings: what reviewers report, which of them a review keeps, and one per problem.

A reviewer reports with `report_finding` (tools/builtin/findings.py); a finding counts
only when its lines touch the change (`Change.near`), and the same problem reported by
two reviewers (the same file, overlapping lines, a similar title) is kept once, at the
higher severity, naming both reviewers (docs/review.md#findings).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from karyi.agent.code_review.changes import Change

SEVERITIES = ("error", "warning", "info")
"""From the most to the least severe."""

SIMILAR = 0.6
"""How alike two titles on overlapping lines must be (difflib's ratio) to be one finding."""


def rank(severity: str) -> int:
    """0 for `error`, 1 for `warning`, 2 for `info`: lower is more severe."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


@dataclass(frozen=True)
class Finding:
    """One problem on lines `line..end_line` of `path` (relative to the workspace root)."""

    path: str
    line: int
    end_line: int
    severity: str
    title: str
    body: str
    suggestion: str | None = None
    reviewers: tuple[str, ...] = field(default=())

    @classmethod
    def from_data(cls, data: Mapping[str, Any], reviewer: str) -> Finding:
        """The finding in a `report_finding` result's data."""
        return cls(
            str(data["path"]),
            int(data["line"]),
            int(data.get("endLine") or data["line"]),
            str(data["severity"]),
            str(data["title"]),
            str(data["body"]),
            data.get("suggestion"),
            (reviewer,),
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`karyi review --format json`, the editor's diagnostics' data)."""
        out: dict[str, Any] = {
            "path": self.path,
            "line": self.line,
            "endLine": self.end_line,
            "severity": self.severity,
            "title": self.title,
            "body": self.body,
            "reviewers": list(self.reviewers),
        }
        if self.suggestion is not None:
            out["suggestion"] = self.suggestion
        return out

    def same_as(self, other: Finding) -> bool:
        """Whether `other` reports the same problem (see the module docstring)."""
        if self.path != other.path:
            return False
        if self.line > other.end_line or other.line > self.end_line:
            return False
        a, b = self.title.casefold(), other.title.casefold()
        return a == b or difflib.SequenceMatcher(None, a, b).ratio() >= SIMILAR


def _merged(kept: Finding, other: Finding) -> Finding:
    first, second = (kept, other) if rank(kept.severity) <= rank(other.severity) else (other, kept)
    reviewers = tuple(dict.fromkeys((*kept.reviewers, *other.reviewers)))
    return replace(first, suggestion=first.suggestion or second.suggestion, reviewers=reviewers)


def merge(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per problem, in file and line order."""
    out: list[Finding] = []
    for finding in findings:
        for index, kept in enumerate(out):
            if kept.same_as(finding):
                out[index] = _merged(kept, finding)
                break
        else:
            out.append(finding)
    return sorted(out, key=lambda f: (f.path, f.line, rank(f.severity), f.title))


@dataclass(frozen=True)
class Sorted:
    """The findings a review keeps, and how many it dropped for lying off the change."""

    kept: list[Finding]
    dropped: int
    merged: int
    """How many reports were the same problem as another and folded into it."""


def sort_out(findings: Iterable[Finding], change: Change) -> Sorted:
    """Keep the findings on `change`, merged; count those dropped and folded."""
    on: list[Finding] = []
    dropped = 0
    for finding in findings:
        if change.near(finding.path, finding.line, finding.end_line):
            on.append(finding)
        else:
            dropped += 1
    kept = merge(on)
    return Sorted(kept, dropped, len(on) - len(kept))


def reaches(findings: Iterable[Finding], fail_on: str) -> bool:
    """Whether a finding is at least as severe as `fail_on` (`never`: none is)."""
    if fail_on not in SEVERITIES:
        return False
    return any(rank(f.severity) <= rank(fail_on) for f in findings)
