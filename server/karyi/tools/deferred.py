"""A built-in tool known by its catalogue entry until a call needs its code.

The registry holds one per built-in tool: prompts, toolkits and listings read the
declaration (name, description, schema, permission, flags) from the catalogue
(tools/catalogue.py); the first call that validates, describes, previews or runs it
imports the tool's module and hands every question to the real tool from then on. The
executor asks for the real tool first (`Tool.loaded`), so a module that cannot be
imported fails its call, not the turn (agent/turn/executor.py).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar

from karyi.core.results import Permission, PermissionVerdict, ToolResult
from karyi.tools.base import Confirmation, Tool
from karyi.tools.catalogue import declarations, tool_class
from karyi.tools.context import ToolContext


class DeferredTool(Tool):
    """A tool whose declaration is known and whose code is imported on first use."""

    place: ClassVar[str]
    """`module:Class` of the real tool (tools/catalogue.py)."""

    def __init__(self) -> None:
        self._tool: Tool | None = None

    def loaded(self) -> Tool:
        """The real tool, its module imported the first time."""
        if self._tool is None:
            self._tool = tool_class(self.place)()
        return self._tool

    def __getattr__(self, name: str) -> Any:
        # What only some tools have (a mutating tool's `path_params`, `planned_writes`).
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)

    def validate(self, params: Mapping[str, Any]) -> str | None:
        return self.loaded().validate(params)

    def check(self, params: Mapping[str, Any]) -> str | None:
        return self.loaded().check(params)

    def describe(self, params: Mapping[str, Any]) -> str:
        return self.loaded().describe(params)

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Confirmation | None:
        return self.loaded().confirmation(params, ctx)

    def approval_key(self, params: Mapping[str, Any]) -> str:
        return self.loaded().approval_key(params)

    def rememberable(self, params: Mapping[str, Any]) -> bool:
        return self.loaded().rememberable(params)

    def permission_for(
        self, params: Mapping[str, Any], ctx: ToolContext
    ) -> PermissionVerdict | None:
        return self.loaded().permission_for(params, ctx)

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        return self.loaded().resources(params, ctx)

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        return self.loaded().scans_tree(params, ctx)

    async def prepare(self, params: Mapping[str, Any], ctx: ToolContext) -> None:
        await self.loaded().prepare(params, ctx)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return await self.loaded().execute(params, ctx)

    async def run(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return await self.loaded().run(params, ctx)


@functools.cache
def _deferred_class(place: str) -> type[DeferredTool]:
    entry = dict(declarations()[place])
    entry["permission"] = Permission(entry["permission"])
    name = place.partition(":")[2]
    return type(name, (DeferredTool,), {"place": place, **entry})


def deferred(place: str) -> Tool:
    """The built-in tool at `module:Class`, its module imported on first use."""
    return _deferred_class(place)()
