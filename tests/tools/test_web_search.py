"""web_search through its backends, each imitated by a local server (no network)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from karyi.secrets.vault import Vault
from karyi.settings import Settings
from karyi.tools.builtin.web_search import SearchWeb, VecliWebSearch, WebSearch
from karyi.tools.context import ToolContext
from karyi.workspace.workspace import Workspace
from tests.support.web_server import Request, WebServer, serve


@pytest.fixture
def web() -> Iterator[WebServer]:
    yield from serve()


def context(ws_root: Path, search: dict[str, Any] | None, **secrets: str) -> ToolContext:
    web = dict(Settings().values["web"])
    if search is not None:
        web["search"] = search
    vault = Vault(None)
    for name, value in secrets.items():
        vault.remember(name, value)
    return ToolContext(Workspace.open(ws_root), Settings().with_values(web=web), secrets=vault)


def searxng(request: Request) -> dict[str, Any]:
    q = request.query["q"][0]
    return {
        "query": q,
        "results": [
            {
                "title": f"{q} result {n}",
                "url": f"https://example.com/{n}",
                "content": f"snippet   {n}",
                "engine": "duckduckgo",
            }
            for n in range(1, 6)
        ],
    }


async def test_searxng_backend(web: WebServer, ws_root: Path) -> None:
    web.json_route("/search", searxng)
    ctx = context(ws_root, {"backend": "searxng", "url": web.url})
    result = await WebSearch().run(
        {"query": "boiling point", "count": 2, "freshness": "oneWeek"}, ctx
    )
    assert result.success, result.llm_content
    assert result.llm_content == (
        'Search results for "boiling point" (searxng, 2):\n\n'
        "1. [boiling point result 1](https://example.com/1) — duckduckgo\n   snippet 1\n"
        "2. [boiling point result 2](https://example.com/2) — duckduckgo\n   snippet 2"
    )
    sent = web.requests[0].query
    assert sent == {"q": ["boiling point"], "format": ["json"], "time_range": ["week"]}
    assert [r["url"] for r in result.data["results"]] == [
        "https://example.com/1",
        "https://example.com/2",
    ]


async def test_searxng_without_json_format_says_how_to_enable_it(
    web: WebServer, ws_root: Path
) -> None:
    web.json_route("/search", lambda _r: {"error": "forbidden"}, status=403)
    result = await WebSearch().run(
        {"query": "x"}, context(ws_root, {"backend": "searxng", "url": web.url})
    )
    assert result.error is not None
    assert "`json` is in search.formats of its settings.yml" in result.error.message


def bocha(request: Request) -> dict[str, Any]:
    body = request.json()
    pages = [
        {
            "name": f"{body['query']} page {n}",
            "url": f"https://bocha.example/{n}",
            "snippet": "short",
            "summary": f"long summary {n}",
            "siteName": "Example",
            "datePublished": f"2025-01-0{n}",
        }
        for n in range(1, body["count"] + 1)
    ]
    return {"code": 200, "data": {"webPages": {"value": pages}}}


async def test_bocha_backend_with_the_key_from_the_vault(web: WebServer, ws_root: Path) -> None:
    web.json_route("/v1/web-search", bocha)
    ctx = context(ws_root, {"backend": "bocha", "url": web.url}, BOCHA_API_KEY="sk-test-123")
    result = await WebSearch().run({"query": "埃菲尔铁塔高度", "count": 2}, ctx)
    assert result.success, result.llm_content
    assert "1. [埃菲尔铁塔高度 page 1](https://bocha.example/1) — Example · 2025-01-01" in (
        result.llm_content
    )
    assert "   long summary 2" in result.llm_content
    request = web.requests[0]
    assert request.headers["authorization"] == "Bearer sk-test-123"
    assert request.json() == {
        "query": "埃菲尔铁塔高度",
        "freshness": "noLimit",
        "count": 2,
        "summary": True,
    }


async def test_bocha_without_its_key(ws_root: Path) -> None:
    ctx = context(ws_root, {"backend": "bocha", "keyVariable": "MY_BOCHA"})
    result = await WebSearch().run({"query": "x"}, ctx)
    assert result.error is not None
    assert "secure variable MY_BOCHA; store it with `karyi var set MY_BOCHA`" in (
        result.error.message
    )


async def test_no_backend_says_exactly_how_to_set_one(ws_root: Path) -> None:
    result = await WebSearch().run({"query": "x"}, context(ws_root, None))
    assert result.error is not None
    message = result.error.message
    assert message.startswith("web_search: web search has no backend configured.")
    assert '"web": {"search": {"backend": "searxng", "url": "http://127.0.0.1:8888"}}' in message
    assert "karyi var set BOCHA_API_KEY" in message


async def test_an_unreachable_backend(ws_root: Path) -> None:
    ctx = context(ws_root, {"backend": "searxng", "url": "http://127.0.0.1:9"})
    result = await WebSearch().run({"query": "x"}, ctx)
    assert result.error is not None and "cannot be reached" in result.error.message


async def test_vecli_and_agentxml_searches_map_onto_the_same_backend(
    web: WebServer, ws_root: Path
) -> None:
    web.json_route("/search", searxng)
    ctx = context(ws_root, {"backend": "searxng", "url": web.url})
    for tool in (VecliWebSearch(), SearchWeb()):
        result = await tool.run({"query": "eiffel"}, ctx)
        assert result.success and "1. [eiffel result 1](https://example.com/1)" in (
            result.llm_content
        )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"query": ""}, "query: '' should be non-empty"),
        ({"query": "x", "count": 51}, "count: 51 is greater than the maximum of 50"),
        ({"query": "x", "freshness": "lastWeek"}, "freshness: 'lastWeek' does not match"),
    ],
)
def test_bad_search_parameters(params: dict[str, Any], message: str) -> None:
    assert (WebSearch().validate(params) or "").startswith(message)


def test_date_ranges_are_accepted() -> None:
    assert WebSearch().validate({"query": "x", "freshness": "2025-01-01..2025-04-06"}) is None
