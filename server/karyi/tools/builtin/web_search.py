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
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class
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


@param_class
class WebSearchParams(ToolParams):
    """research `web_search`'s parameters."""

    query: str = arg(min_length=1, description="Search query using keywords.")
    freshness: str = arg(
        pattern=FRESHNESS_PATTERN,
        default="noLimit",
        description="Time range filter: 'noLimit', 'oneDay', 'oneWeek', "
        "'oneMonth', 'oneYear', a date 'YYYY-MM-DD' or a range "
        "'YYYY-MM-DD..YYYY-MM-DD'",
    )
    count: int = arg(
        minimum=1, maximum=50, default=10, description="Number of results to return (1-50)"
    )


@param_class
class VecliWebSearchParams(ToolParams):
    """vecli `web_search`'s parameters."""

    query: str = arg(min_length=1, description="The search query.")


@param_class
class SearchWebParams(ToolParams):
    """agentxml `search_web`'s parameters."""

    query: str = arg(min_length=1, description="搜索关键词")


class WebSearch(TypedTool[WebSearchParams]):
    """research `web_search(query, freshness, count)`."""

    plan_safe = True

    name = "web_search"
    display_name = "Web Search"
    description = (
        "Search the web for information with the configured search engine (SearXNG or "
        "Bocha). Returns titles, URLs and snippets; fetch a page with web_fetch to read it."
    )

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Search the web: {self.args(params).query}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Search."""
        a = self.args(params)
        return await run_search(ctx, a.query, count=a.count, freshness=a.freshness)


class VecliWebSearch(TypedTool[VecliWebSearchParams]):
    """Gemini CLI's `google_web_search(query)`, named `web_search` in vecli."""

    plan_safe = True

    name = "web_search"
    display_name = "WebSearch"
    description = (
        "Performs a web search with the configured search engine and returns the results "
        "(titles, URLs, snippets). Useful for finding information on the internet."
    )

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f'Searching the web for: "{self.args(params).query}"'

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Search."""
        return await run_search(ctx, self.args(params).query)


class SearchWeb(TypedTool[SearchWebParams]):
    """agentxml `search_web(query)`."""

    plan_safe = True

    name = "search_web"
    display_name = "Search Web"
    description = "执行网络搜索 (search the web): returns the result titles, links and snippets."

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Search the web: {self.args(params).query}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Search."""
        return await run_search(ctx, self.args(params).query)
