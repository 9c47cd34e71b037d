"""`symbols`: a file's outline, or the workspace's symbols matching a query
(docs/tools.md#symbols)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.navigation.common import line_reader, navigator, server_faults
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class

if TYPE_CHECKING:
    from karyi.navigation.navigator import Navigator
    from karyi.navigation.places import Symbol


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
        """`documentSymbol` for a path, `workspace/symbol` for a query (within `path`); in
        a language no server answers for, the tree-sitter index's (marked syntactic)."""
        from karyi.navigation.places import render

        a = self.args(params)
        nav = navigator(ctx)
        path = ctx.workspace.resolve(a.path, param="path") if a.path else None
        async with server_faults("symbols"):
            if a.query is None and path is not None:
                if not path.is_file():
                    raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, f"{a.path} is not a file")
                found, note = await _outline(nav, path)
            else:
                found, note = await _search(nav, a.query or "", path)
        notes = {s.place: f"{s.kind} {s.qualified}" for s in found}
        listing = render(list(notes), ctx.workspace.display, line_reader(ctx), notes=notes)
        what = f"Outline of {a.path}" if a.query is None else f"Symbols matching {a.query!r}"
        head = f"{what}: {listing.total}"
        text = "\n".join(filter(None, (head, note, listing.text)))
        data: dict[str, Any] = {"symbols": listing.data, "total": listing.total}
        return ToolResult.ok(text, display=head, data=data | ({"syntactic": True} if note else {}))


async def _outline(nav: Navigator, path: Path) -> tuple[list[Symbol], str]:
    """A file's outline from its server, else (no server for it) from tree-sitter."""
    from karyi.navigation.errors import ServerGone
    from karyi.navigation.fallback import SYNTACTIC
    from karyi.navigation.lookup import outline

    grammar = nav.syntax.grammar(path)
    if grammar is None or nav.installed_for(path):
        try:
            answer = await nav.for_path(path).request(
                "textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}}
            )
            return outline(answer, path), ""
        except ServerGone:
            if grammar is None or nav.installed_for(path):
                raise
    assert grammar is not None
    found = await asyncio.to_thread(nav.syntax.outline, path)
    return found, SYNTACTIC.format(title=f"{grammar.title} files")


async def _search(nav: Navigator, query: str, path: Path | None) -> tuple[list[Symbol], str]:
    """The servers' workspace symbols, and the tree-sitter index's in the languages no
    server answers for (marked syntactic when there are some)."""
    from karyi.navigation.errors import ServerGone
    from karyi.navigation.fallback import SYNTACTIC
    from karyi.navigation.lookup import workspace_symbols

    found: list[Symbol] = []
    for language in nav.languages_present():
        try:
            answer = await nav.server(language).request("workspace/symbol", {"query": query})
        except ServerGone:
            if nav.installed(language):
                raise
            continue  # a server that would not start: its files are parsed instead
        found += [
            s
            for s in workspace_symbols(answer, nav.root)
            if path is None or s.place.path.is_relative_to(path)
        ]
    unserved = nav.unserved()
    more = await nav.syntax.search(query, path or nav.root, unserved) if unserved else []
    if not more:
        return found, ""
    seen = {nav.syntax.grammar(s.place.path) for s in more}
    titles = ", ".join(g.title for g in unserved if g in seen)
    return found + more, SYNTACTIC.format(title=f"{titles} files")
