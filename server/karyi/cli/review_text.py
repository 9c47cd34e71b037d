"""`karyi review`'s text: the findings grouped by file, each with its lines, its
reasons and its suggestion; colour on a terminal (rich decides)."""

from __future__ import annotations

from itertools import groupby
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from karyi.agent.code_review.findings import Finding
from karyi.agent.code_review.runner import Review

STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
SHOWN = 6
"""Lines of code shown under a finding at most."""


def print_review(out: Console, review: Review, root: Path) -> None:
    """Every finding, by file, then the summary line."""
    if not review.findings:
        out.print("no findings")
    for path, group in groupby(review.findings, key=lambda f: f.path):
        out.print(f"[bold]{escape(path)}[/bold]")
        lines = _lines(root / path)
        for finding in group:
            _print_finding(out, finding, lines)
        out.print()
    out.print(summary(review))


def _print_finding(out: Console, finding: Finding, lines: list[str]) -> None:
    where = (
        f"{finding.line}"
        if finding.end_line == finding.line
        else (f"{finding.line}-{finding.end_line}")
    )
    style = STYLE.get(finding.severity, "")
    who = ", ".join(finding.reviewers)
    out.print(
        f"  {where}: [{style}]{finding.severity}[/{style}] {escape(finding.title)} "
        f"[dim]({escape(who)})[/dim]"
    )
    last = min(finding.end_line, finding.line + SHOWN - 1, len(lines))
    for number in range(finding.line, last + 1):
        out.print(f"[dim]  {number:>5} │[/dim] {escape(lines[number - 1])}")
    for row in finding.body.splitlines():
        out.print(f"    {escape(row)}")
    if finding.suggestion is not None:
        out.print("    [green]suggestion:[/green]")
        for row in finding.suggestion.splitlines():
            out.print(f"[green]    + {escape(row)}[/green]")


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def summary(review: Review) -> str:
    """One line: the findings by severity, what was dropped and merged, tokens, cost."""
    counts = {s: sum(f.severity == s for f in review.findings) for s in STYLE}
    found = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "none"
    parts = [
        f"{len(review.findings)} finding(s) ({found})",
        f"{review.sorted.dropped} dropped off the change",
        f"{review.sorted.merged} merged",
        f"{len(review.passes)} reviewer(s)",
        f"{review.tokens:,} of {review.budget.tokens:,} tokens",
    ]
    if review.cost is not None:
        parts.append(f"${review.cost:.4f}")
    if review.over_budget:
        parts.append("budget reached: reviewers stopped")
    return " · ".join(parts)
