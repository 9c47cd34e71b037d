"""A small tool with every kind of parameter, for tests of the tool contract."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext


class Echo(Tool):
    """Echoes `text`; "fail" and "crash" make it fail the two ways a tool can."""

    name = "echo"
    description = "Echo text back."
    parameters = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "what to say"},
            "times": {"type": "integer", "minimum": 1},
            "mode": {"type": "string", "enum": ["loud", "quiet"]},
        },
        "required": ["text"],
        "additionalProperties": False,
    }

    def check(self, params: Mapping[str, Any]) -> str | None:
        return "text: must not be 'forbidden'" if params["text"] == "forbidden" else None

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        if params["text"] == "fail":
            raise ToolFailure(ErrorCode.CONFLICT, "echo: conflict")
        if params["text"] == "crash":
            raise RuntimeError("boom")
        return ToolResult.ok(params["text"] * params.get("times", 1), data={"n": 1})
