"""Web search, for every profile over the search backends of `tools/webclient`.

- research: `web_search(query, freshness, count)`
- vecli (Gemini CLI): `web_search(query)`
- agentxml: `search_web(query)`

Searching is `auto`: the query goes to the backend the user configured (`web.search`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext
from karyi.tools.webclient.engines import (
    FRESHNESS_PATTERN,
    SearchError,
    SearchResults,
    create_backend,
    render,
)


async def run_search(
    ctx: ToolContext, query: str, *, count: int = 10, freshness: str = "noLimit"
) -> ToolResult:
    """Search with the configured backend; every failure is a result that says why."""
    lookup = ctx.secrets.lookup if ctx.secrets is not None else (lambda _name: None)
    try:
        backend = create_backend(ctx.settings, lookup)
        results = await backend.search(query, count=count, freshness=freshness)
    except SearchError as exc:
        raise ToolFailure(ErrorCode.TOOL_ERROR, f"web_search: {exc}") from None
    return ToolResult.ok(render(results, query), data=_hits(results))


def _hits(results: SearchResults) -> dict[str, Any]:
    return {
        "backend": results.backend,
        "results": [
            {"title": h.title, "url": h.url, "snippet": h.snippet, "site": h.site, "date": h.date}
            for h in results.hits
        ],
    }


_QUERY = {"type": "string", "minLength": 1, "description": "Search query using keywords."}


class WebSearch(Tool):
    """research `web_search(query, freshness, count)`."""

    plan_safe = True

    name = "web_search"
    display_name = "Web Search"
    description = (
        "Search the web for information with the configured search engine (SearXNG or "
        "Bocha). Returns titles, URLs and snippets; fetch a page with web_fetch to read it."
    )
    parameters = {
        "type": "object",
        "properties": {
            "query": _QUERY,
            "freshness": {
                "type": "string",
                "pattern": FRESHNESS_PATTERN,
                "default": "noLimit",
                "description": "Time range filter: 'noLimit', 'oneDay', 'oneWeek', "
                "'oneMonth', 'oneYear', a date 'YYYY-MM-DD' or a range "
                "'YYYY-MM-DD..YYYY-MM-DD'",
            },
            "count": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "default": 10,
                "description": "Number of results to return (1-50)",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    }

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Search the web: {params.get('query')}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Search."""
        return await run_search(
            ctx,
            str(params["query"]),
            count=int(params.get("count", 10)),
            freshness=str(params.get("freshness", "noLimit")),
        )


class VecliWebSearch(Tool):
    """Gemini CLI's `google_web_search(query)`, named `web_search` in vecli."""

    plan_safe = True

    name = "web_search"
    display_name = "WebSearch"
    description = (
        "Performs a web search with the configured search engine and returns the results "
        "(titles, URLs, snippets). Useful for finding information on the internet."
    )
    parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "The search query."}
        },
        "required": ["query"],
        "additionalProperties": False,
    }

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f'Searching the web for: "{params.get("query")}"'

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Search."""
        return await run_search(ctx, str(params["query"]))


class SearchWeb(Tool):
    """agentxml `search_web(query)`."""

    plan_safe = True

    name = "search_web"
    display_name = "Search Web"
    description = "执行网络搜索 (search the web): returns the result titles, links and snippets."
    parameters = {
        "type": "object",
        "properties": {"query": {"type": "string", "minLength": 1, "description": "搜索关键词"}},
        "required": ["query"],
        "additionalProperties": False,
    }

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Search the web: {params.get('query')}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Search."""
        return await run_search(ctx, str(params["query"]))
