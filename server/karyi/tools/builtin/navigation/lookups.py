"""`definition`, `references`, `hover` and `calls`: what a language server knows about one
symbol, found by its name (docs/tools.md#code-navigation).

Every profile has them under the same names and parameters. Locations read as grep's
do, `path:line:column: the line's text`, grouped by file, capped with the total.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.navigation.common import (
    SymbolParams,
    check_symbol,
    find_target,
    line_reader,
    server_faults,
)
from karyi.tools.context import ToolContext
from karyi.tools.typed import TypedTool, arg, param_class


def _about(a: SymbolParams | CallsParams) -> str:
    if a.symbol:
        return a.symbol + (f" in {a.path}" if a.path else "")
    return f"{a.path}:{a.line}" + (f":{a.column}" if a.column else "")


class _Navigate(TypedTool[SymbolParams]):
    """What the symbol tools share: read-only, plan-safe, a name or a position."""

    plan_safe = True
    verb = ""

    def check(self, params: Mapping[str, Any]) -> str | None:
        """A symbol, or a path and a line."""
        a = self.args(params)
        return check_symbol(a.symbol, a.path, a.line)

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"{self.verb} {_about(self.args(params))}"

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """A language server reads the files as the calls before this one left them."""
        return True


def _listing_result(
    header: str,
    places: list[Any],
    ctx: ToolContext,
    first: Any,
    notes: Mapping[Any, str] | None = None,
) -> ToolResult:
    from karyi.navigation.places import render

    listing = render(places, ctx.workspace.display, line_reader(ctx), first=first, notes=notes)
    files = len({p.path for p in places})
    head = f"{header}: {listing.total} in {files} file{'s' * (files != 1)}"
    return ToolResult.ok(
        f"{head}\n{listing.text}" if listing.text else head,
        display=head,
        data={"locations": listing.data, "total": listing.total},
    )


class Definition(_Navigate):
    """Where a symbol is defined."""

    name = "definition"
    display_name = "Definition"
    verb = "Find the definition of"
    description = (
        "Find where a symbol is defined, through the language's server: give its name "
        "(`formatdate`, or qualified: `Message.get_payload`, `utils.formatdate`), or a "
        "`path` and `line` where it is used. Answers `path:line:column: text`."
    )
    example = {"symbol": "Message.get_payload"}

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The definitions of the symbol at the place found (several names: all of them)."""
        from karyi.navigation.fallback import OnlySyntax
        from karyi.navigation.places import places_of

        a = self.args(params)
        async with server_faults("definition"):
            try:
                target = await find_target(ctx, a.symbol, a.path, a.line, a.column, many=True)
            except OnlySyntax as only:
                return _syntactic(a, only, ctx)
            if len(target.symbols) > 1:
                places = [s.place for s in target.symbols]
                return _listing_result(f"Definitions of {_about(a)}", places, ctx, None)
            answer = await target.server.request("textDocument/definition", target.place.params())
        places = places_of(answer) or [target.place]
        return _listing_result(f"Definition of {_about(a)}", places, ctx, None)


def _syntactic(a: SymbolParams, only: Any, ctx: ToolContext) -> ToolResult:
    """The declarations the tree-sitter index found, under the line that says so."""
    if not only.symbols:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"no declaration of {_about(a)} was found; {only}")
    notes = {s.place: f"{s.kind} {s.qualified}" for s in only.symbols}
    result = _listing_result(f"Definition of {_about(a)}", list(notes), ctx, None, notes)
    head, _, rest = result.llm_content.partition("\n")
    data = {**result.data, "syntactic": True} if isinstance(result.data, dict) else result.data
    return ToolResult.ok(f"{head}\n{only.note}\n{rest}", display=result.display, data=data)


class References(_Navigate):
    """Every use of a symbol, its definition included."""

    name = "references"
    display_name = "References"
    verb = "Find the references of"
    description = (
        "Find every reference to a symbol (calls, imports, attribute uses, `__all__` "
        "entries, its definition too) through the language's server: exact, unlike a text "
        "search, which also hits comments, strings and other things of the same name. "
        "Give its name (`Message.get_payload`) or a `path` and `line`."
    )
    example = {"symbol": "utils.formatdate"}

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`textDocument/references` with the declaration, grouped by file."""
        from karyi.navigation.places import places_of

        a = self.args(params)
        async with server_faults("references"):
            target = await find_target(ctx, a.symbol, a.path, a.line, a.column)
            answer = await target.server.request(
                "textDocument/references",
                {**target.place.params(), "context": {"includeDeclaration": True}},
            )
        places = places_of(answer) or [target.place]
        return _listing_result(f"References of {_about(a)}", places, ctx, target.place.path)


def hover_text(contents: Any) -> str:
    """A hover's `contents` (markup, a marked string, or a list of them) as text."""
    if isinstance(contents, list):
        return "\n\n".join(filter(None, (hover_text(c) for c in contents)))
    if isinstance(contents, Mapping):
        value = str(contents.get("value", ""))
        language = contents.get("language")
        return f"```{language}\n{value}\n```" if language else value
    return str(contents or "")


class Hover(_Navigate):
    """A symbol's type, signature and documentation."""

    name = "hover"
    display_name = "Hover"
    verb = "Show the type and docs of"
    description = (
        "Show a symbol's type, signature and documentation as the editor's hover does, "
        "without reading its file: give its name (`Message.get_payload`) or a `path` and "
        "`line`."
    )
    example = {"symbol": "Message.get_payload"}

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`textDocument/hover` at the place found."""
        a = self.args(params)
        async with server_faults("hover"):
            target = await find_target(ctx, a.symbol, a.path, a.line, a.column)
            answer = await target.server.request("textDocument/hover", target.place.params())
        text = hover_text((answer or {}).get("contents")).strip()
        where = f"{ctx.workspace.display(target.place.path)}:{target.place.line + 1}"
        if not text:
            raise ToolFailure(ErrorCode.NOT_FOUND, f"the language server has nothing on {where}")
        return ToolResult.ok(
            f"{where}\n{text}", display=f"Hover on {_about(a)}", data={"text": text}
        )


@param_class
class CallsParams(SymbolParams):
    """`calls`' parameters: a symbol's, and which way to follow the calls."""

    direction: Literal["incoming", "outgoing"] = arg(
        default="incoming",
        description="incoming: who calls it (each call site); outgoing: what it calls",
    )


class Calls(TypedTool[CallsParams]):
    """The call hierarchy of a function: its callers or its callees."""

    plan_safe = True

    name = "calls"
    display_name = "Calls"
    description = (
        "Follow a function's calls through the language's server: `incoming` lists every "
        "call site of it (the caller in brackets), `outgoing` every function it calls. "
        "Give its name (`utils.formatdate`) or a `path` and `line`."
    )
    example = {"symbol": "utils.formatdate", "direction": "incoming"}

    def check(self, params: Mapping[str, Any]) -> str | None:
        """A symbol, or a path and a line."""
        a = self.args(params)
        return check_symbol(a.symbol, a.path, a.line)

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        verb = "Find the callers of" if a.direction == "incoming" else "Find the calls made by"
        return f"{verb} {_about(a)}"

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """See `_Navigate.scans_tree`."""
        return True

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`prepareCallHierarchy`, then the incoming or outgoing calls of its item."""
        from karyi.navigation.places import Place

        a = self.args(params)
        notes: dict[Place, str] = {}
        async with server_faults("calls"):
            target = await find_target(ctx, a.symbol, a.path, a.line, a.column)
            items = await target.server.request(
                "textDocument/prepareCallHierarchy", target.place.params()
            )
            if not items:
                raise ToolFailure(
                    ErrorCode.NOT_FOUND, f"{_about(a)} is not a function the server can follow"
                )
            method = f"callHierarchy/{a.direction}Calls"
            calls = await target.server.request(method, {"item": items[0]}) or []
        for call in calls:
            notes.update(_call_places(call, a.direction, items[0]))
        header = "Callers of" if a.direction == "incoming" else "Calls made by"
        result = _listing_result(f"{header} {_about(a)}", list(notes), ctx, None, notes)
        return result


def _call_places(
    call: Mapping[str, Any], direction: str, item: Mapping[str, Any]
) -> dict[Any, str]:
    """Incoming: each call site in the caller's file, noted with the caller's name;
    outgoing: each call site in the function itself, noted with the callee's name."""
    from karyi.navigation.places import Place, uri_path

    other = call.get("from" if direction == "incoming" else "to") or {}
    where = other if direction == "incoming" else item
    path = uri_path(str(where.get("uri", "")))
    if path is None:
        return {}
    out: dict[Any, str] = {}
    for rng in call.get("fromRanges") or []:
        start = rng.get("start") or {}
        place = Place(path, int(start.get("line", 0)), int(start.get("character", 0)))
        name = str(other.get("name", ""))
        out[place] = f"in {name}" if direction == "incoming" else f"calls {name}"
    return out
