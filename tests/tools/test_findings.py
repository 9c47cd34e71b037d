"""`report_finding`: the finding checked and echoed as the result's data."""

from __future__ import annotations

from pathlib import Path

from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry, default_toolkit
from tests.support.tool_calls import call, code


async def test_a_finding_is_echoed_as_data(ctx: ToolContext, ws_root: Path) -> None:
    params = {
        "path": "./src/main.py",
        "line": 1,
        "severity": "warning",
        "title": " Greets nobody ",
        "body": "It prints a constant.",
        "suggestion": "print('hello')\n",
    }
    result = await call("review.report_finding", params, ctx)
    assert result.success, result.error
    assert result.llm_content == "Recorded: warning at src/main.py:1-1."
    assert result.data == {
        "path": "src/main.py",
        "line": 1,
        "endLine": 1,
        "severity": "warning",
        "title": "Greets nobody",
        "body": "It prints a constant.",
        "suggestion": "print('hello')\n",
    }


async def test_bad_places_are_refused(ctx: ToolContext) -> None:
    base = {"severity": "error", "title": "t", "body": "b"}
    back = await call(
        "review.report_finding", {**base, "path": "README.md", "line": 3, "end_line": 2}, ctx
    )
    assert (
        back.error is not None
        and "end_line: expected at least line (3), got 2" in back.error.message
    )
    past = await call("review.report_finding", {**base, "path": "README.md", "line": 4}, ctx)
    assert past.error is not None and past.error.message == "line: README.md has 3 line(s), got 4"
    missing = await call("review.report_finding", {**base, "path": "nope.py", "line": 1}, ctx)
    assert code(missing) == "tool_not_found"
    odd = await call(
        "review.report_finding", {**base, "path": "README.md", "line": 1, "severity": "fatal"}, ctx
    )
    assert code(odd) is not None and "severity" in (odd.error.message if odd.error else "")


def test_only_the_review_profile_has_it() -> None:
    registry = builtin_registry()
    for profile in ("karyi", "agentxml", "vecli", "gateway", "research"):
        assert "report_finding" not in default_toolkit(registry, profile)
    assert list(registry.profile("review")) == ["report_finding"]
