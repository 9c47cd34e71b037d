"""Results: the one JSON form every front end shows."""

from __future__ import annotations

from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult


def test_result_to_dict_success() -> None:
    r = ToolResult.ok("content", display="**shown**", data=[1], status="running", elapsed=0.5)
    assert r.to_dict() == {
        "success": True,
        "llm_content": "content",
        "display": "**shown**",
        "data": [1],
        "error": None,
        "metadata": {"elapsed": 0.5},
        "status": "running",
    }


def test_result_to_dict_failure() -> None:
    r = ToolResult.fail(ErrorCode.NOT_FOUND, "x: no such file")
    assert r.to_dict() == {
        "success": False,
        "llm_content": "x: no such file",
        "display": "x: no such file",
        "data": None,
        "error": {"code": "tool_not_found", "message": "x: no such file"},
        "metadata": {},
    }
