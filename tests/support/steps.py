"""Test tools for the executor and approval tests: they log when they start and end, wait
on a gate when told, and touch the resource they are given."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from karyi.core.results import Permission, ToolResult
from karyi.protocol.calls import ToolCall
from karyi.tools.base import Confirmation, Tool
from karyi.tools.context import ToolContext

LOG: list[str] = []
GATES: dict[str, asyncio.Event] = {}
STARTED: dict[str, asyncio.Event] = {}


class Step(Tool):
    """Logs start/end; waits on GATES[key] when given; touches resource `res`."""

    name = "step"
    description = "test step"
    parameters = {
        "type": "object",
        "properties": {"key": {"type": "string"}, "res": {"type": "string"}},
        "required": ["key"],
        "additionalProperties": False,
    }

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        return frozenset([params["res"]]) if "res" in params else frozenset()

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        LOG.append(f"start {params['key']}")
        STARTED.setdefault(params["key"], asyncio.Event()).set()
        if params["key"] in GATES:
            await GATES[params["key"]].wait()
        LOG.append(f"end {params['key']}")
        return ToolResult.ok(params["key"])


class Program(Step):
    name = "program"
    runs_programs = True


class Change(Step):
    name = "change"
    changes_files = True


class Scan(Step):
    name = "scan"

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        return True


class Risky(Step):
    name = "risky"
    permission = Permission.CONFIRM

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Confirmation:
        return Confirmation("command", f"run {params['key']}", details="rm -rf build")


def c(index: int, name: str, **params: Any) -> ToolCall:
    return ToolCall(index=index, name=name, params=params, id=f"id{index}")
