"""In which order the calls of one reply run, and which run side by side.

Calls that touch the same resource (the same file, the same terminal) run in the order
written; a call that runs programs (`Tool.runs_programs`: a command, an MCP or
discovered tool) after every call written before it and before every call written
after it; a search or listing (`Tool.scans_tree`) after the earlier calls that change
files and before the later ones. The rest run in parallel.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, TypeVar

from karyi.protocol.calls import ToolCall
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext

T = TypeVar("T")


class CallOrder(Generic[T]):
    """The tasks of one reply's calls, each started after the calls it must follow."""

    def __init__(self) -> None:
        self.tasks: list[asyncio.Task[T]] = []
        self._by_resource: dict[str, asyncio.Task[T]] = {}
        self._barrier: asyncio.Task[T] | None = None
        self._changers: list[asyncio.Task[T]] = []
        self._scanners: list[asyncio.Task[T]] = []

    def schedule(
        self,
        tool: Tool | None,
        call: ToolCall,
        ctx: ToolContext,
        job: Callable[[list[asyncio.Task[T]]], Awaitable[T]],
    ) -> asyncio.Task[T]:
        """Start `job` with the tasks it must wait for; `tool` is None for a call that
        will not run (it waits for nothing and holds nobody)."""
        keys = resources_of(tool, call.params, ctx) if tool is not None else frozenset()
        barrier = tool is not None and tool.runs_programs
        scans = tool is not None and _scans(tool, call, ctx)
        changes = tool is not None and tool.changes_files
        if barrier:
            deps = list(self.tasks)
        else:
            deps = [self._by_resource[k] for k in keys if k in self._by_resource]
            deps += [self._barrier] if self._barrier is not None else []
            deps += (self._changers if scans else []) + (self._scanners if changes else [])
        task = asyncio.ensure_future(job(deps))
        for key in keys:
            self._by_resource[key] = task
        if barrier:
            self._barrier = task
        if scans:
            self._scanners.append(task)
        if changes:
            self._changers.append(task)
        self.tasks.append(task)
        return task


def resources_of(tool: Tool, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
    """The keys of what a call touches (`Tool.resources`); none for a call whose
    parameters the tool cannot read (a refused path): that call fails on its own."""
    try:
        return tool.resources(params, ctx)
    except Exception:
        return frozenset()


def _scans(tool: Tool, call: ToolCall, ctx: ToolContext) -> bool:
    try:
        return tool.scans_tree(call.params, ctx)
    except Exception:  # a path the policy refuses: the call will fail on its own
        return False
