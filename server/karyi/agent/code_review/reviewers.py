"""The reviewers: focused passes over one change, each an agent of its own
(docs/review.md#reviewers).

A reviewer reads with the read-only tools of the built-in `explore` agent and reports
with `report_finding` (the `review` profile: no other agent has it). Its instructions
are the shared reviewer template with its focus; the project's `REVIEW.md` and the
diff come in its task.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from karyi.agent.code_review.changes import Change

READ_ONLY = (
    "karyi.read",
    "vecli.ls",
    "vecli.grep",
    "vecli.glob",
    "vecli.read_many_files",
    "karyi.definition",
    "karyi.references",
    "karyi.hover",
    "karyi.calls",
    "karyi.symbols",
)
"""What a reviewer reads with: the `explore` agent's tools and code navigation (who calls
what a change touches), never `rename`."""

REPORT = "review.report_finding"

DIFF_LIMIT = 120_000
"""Characters of the diff a reviewer's task carries; a longer diff is cut, the reviewer
told to read the rest of the files itself."""


@dataclass(frozen=True)
class Reviewer:
    """One focused pass: its name and what it looks for."""

    name: str
    focus: str
    max_steps: int = 30

    @property
    def instructions(self) -> str:
        """The reviewer template with this reviewer's name and focus."""
        from karyi.agent.prompting.system_prompt import template

        return template("review/reviewer").safe_substitute(name=self.name, focus=self.focus)


REVIEWERS = (
    Reviewer(
        "correctness",
        "bugs: wrong logic, unhandled cases and errors, broken contracts between the "
        "changed code and its callers, races, resource leaks.",
    ),
    Reviewer(
        "security",
        "vulnerabilities: injection, unchecked input, paths and permissions, secrets in "
        "code or logs, unsafe deserialisation, weak cryptography.",
    ),
    Reviewer(
        "tests",
        "tests: changed behaviour without a test, tests that cannot fail or test the "
        "wrong thing, missing edge cases.",
    ),
)
"""The built-in passes, run in parallel."""


def review_rules(root: Path) -> str:
    """The project's `REVIEW.md` at the repository root, or ''."""
    path = root / "REVIEW.md"
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def task_text(change: Change, rules: str) -> str:
    """What a reviewer is asked: the change's name and files, the rules, the diff."""
    files = "\n".join(f"- {path}" for path in change.lines)
    diff = change.diff
    cut = ""
    if len(diff) > DIFF_LIMIT:
        diff = diff[:DIFF_LIMIT]
        cut = "\n[the diff is cut here: read the remaining files yourself]"
    parts = [f"Review the {change.label}. The changed files:\n{files}"]
    if rules:
        parts.append(f"The project's review rules (REVIEW.md):\n{rules}")
    parts.append(f"The diff:\n```diff\n{diff}```{cut}")
    return "\n\n".join(parts)
