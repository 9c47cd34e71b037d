"""`symbols`: a file's outline, or the workspace's symbols matching a query
(docs/tools.md#symbols)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.navigation.common import line_reader, navigator, server_faults
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class


@param_class
class SymbolsParams(ToolParams):
    """`symbols`' parameters: a file, or a query."""

    path: str | None = arg(implied=None, description="a file: its outline")
    query: str | None = arg(
        implied=None, min_length=1, description="a name or part of one: the workspace's symbols"
    )


class Symbols(TypedTool[SymbolsParams]):
    """A file's outline or a workspace symbol search."""

    plan_safe = True

    name = "symbols"
    display_name = "Symbols"
    description = (
        "List symbols through the language's server: with `path`, that file's outline "
        "(classes, functions, methods, with their lines) without reading it whole; with "
        "`query`, the workspace's symbols whose names match it."
    )
    example = {"path": "src/app.py"}

    def check(self, params: Mapping[str, Any]) -> str | None:
        """A path or a query."""
        a = self.args(params)
        return None if a.path or a.query else "give `path` (an outline) or `query` (a search)"

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        return f"Outline {a.path}" if a.path and not a.query else f"Find symbols like {a.query}"

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """A language server reads the files as the calls before this one left them."""
        return True

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`documentSymbol` for a path, `workspace/symbol` for a query (within `path`)."""
        from karyi.navigation.lookup import Symbol, outline, workspace_symbols
        from karyi.navigation.places import render

        a = self.args(params)
        nav = navigator(ctx)
        path = ctx.workspace.resolve(a.path, param="path") if a.path else None
        found: list[Symbol] = []
        async with server_faults("symbols"):
            if a.query is None and path is not None:
                if not path.is_file():
                    raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, f"{a.path} is not a file")
                answer = await nav.for_path(path).request(
                    "textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}}
                )
                found = outline(answer, path)
            else:
                for language in nav.languages_present():
                    answer = await nav.server(language).request(
                        "workspace/symbol", {"query": a.query}
                    )
                    found += [
                        s
                        for s in workspace_symbols(answer, nav.root)
                        if path is None or s.place.path.is_relative_to(path)
                    ]
        notes = {s.place: f"{s.kind} {s.qualified}" for s in found}
        listing = render(list(notes), ctx.workspace.display, line_reader(ctx), notes=notes)
        what = f"Outline of {a.path}" if a.query is None else f"Symbols matching {a.query!r}"
        head = f"{what}: {listing.total}"
        return ToolResult.ok(
            f"{head}\n{listing.text}" if listing.text else head,
            display=head,
            data={"symbols": listing.data, "total": listing.total},
        )
