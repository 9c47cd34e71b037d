"""Web search behind one interface, with the backend chosen in settings `web.search`.

- `searxng`: a SearXNG instance's JSON API (`GET {url}/search?q=…&format=json`); the
  instance must have `json` among its `search.formats`.
- `bocha`: Bocha AI's web search (`POST https://api.bochaai.com/v1/web-search`, seed
  002), its key read from the secure variable named by `keyVariable` (default
  `BOCHA_API_KEY`; `karyi var set BOCHA_API_KEY`): never a value in a settings file.

The backend URL is the user's own choice, so the private-address policy of `web_fetch`
does not apply to it (a SearXNG on 127.0.0.1 is the usual setup).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from karyi.settings import Settings

FRESHNESS = ("noLimit", "oneDay", "oneWeek", "oneMonth", "oneYear")
FRESHNESS_PATTERN = (
    r"^(noLimit|oneDay|oneWeek|oneMonth|oneYear|\d{4}-\d{2}-\d{2}(\.\.\d{4}-\d{2}-\d{2})?)$"
)
BOCHA_URL = "https://api.bochaai.com"
HOW_TO_CONFIGURE = (
    "web search has no backend configured. Add one to your user settings "
    '(<user config dir>/karyi/settings.json), either a SearXNG instance: "web": {"search": '
    '{"backend": "searxng", "url": "http://127.0.0.1:8888"}} (its settings.yml must list '
    'json in search.formats), or Bocha: "web": {"search": {"backend": "bocha", '
    '"keyVariable": "BOCHA_API_KEY"}} with the key stored as a secure variable '
    "(karyi var set BOCHA_API_KEY)"
)


class SearchError(Exception):
    """A search that produced no results list; the message says what to do."""


@dataclass(frozen=True)
class SearchHit:
    """One result: title, URL, a snippet, and where and when it was published."""

    title: str
    url: str
    snippet: str
    site: str = ""
    date: str = ""


@dataclass(frozen=True)
class SearchResults:
    """What a backend found, and anything the model should know about how."""

    backend: str
    hits: list[SearchHit]
    note: str = ""


class SearchBackend(ABC):
    """A search engine."""

    name: str

    @abstractmethod
    async def search(self, query: str, *, count: int, freshness: str) -> SearchResults:
        """Up to `count` results for `query` (raises SearchError)."""


def _get(data: Any, *path: str) -> Any:
    for key in path:
        data = data.get(key) if isinstance(data, Mapping) else None
    return data


class SearxngBackend(SearchBackend):
    """A SearXNG instance's JSON API."""

    name = "searxng"
    _RANGES = {"oneDay": "day", "oneWeek": "week", "oneMonth": "month", "oneYear": "year"}

    def __init__(self, url: str, timeout: float) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    async def search(self, query: str, *, count: int, freshness: str) -> SearchResults:
        """See `SearchBackend.search`."""
        params = {"q": query, "format": "json"}
        note = ""
        if freshness in self._RANGES:
            params["time_range"] = self._RANGES[freshness]
        elif freshness != "noLimit":
            note = f"SearXNG has no date ranges: searched without freshness {freshness!r}"
        data = await _request(self.name, "GET", f"{self.url}/search", self.timeout, params=params)
        if not isinstance(data, Mapping) or not isinstance(data.get("results"), list):
            raise SearchError("searxng answered without a results list")
        hits = [
            SearchHit(
                str(r.get("title") or ""),
                str(r.get("url") or ""),
                str(r.get("content") or ""),
                str(r.get("engine") or ""),
                str(r.get("publishedDate") or ""),
            )
            for r in data["results"][:count]
            if isinstance(r, Mapping) and r.get("url")
        ]
        return SearchResults(self.name, hits, note)


class BochaBackend(SearchBackend):
    """Bocha AI web search (docs/tools.md#web_search)."""

    name = "bocha"

    def __init__(self, url: str, key: str, timeout: float) -> None:
        self.url = url.rstrip("/")
        self.key = key
        self.timeout = timeout

    async def search(self, query: str, *, count: int, freshness: str) -> SearchResults:
        """See `SearchBackend.search`."""
        body = {"query": query, "freshness": freshness, "count": count, "summary": True}
        headers = {"authorization": f"Bearer {self.key}"}
        data = await _request(
            self.name, "POST", f"{self.url}/v1/web-search", self.timeout, json=body, headers=headers
        )
        code = _get(data, "code")
        if code not in (None, 200):
            raise SearchError(f"bocha answered code {code}: {_get(data, 'msg') or 'no message'}")
        pages = _get(data, "data", "webPages", "value")
        if pages is None:
            pages = []
        if not isinstance(pages, list):
            raise SearchError("bocha answered without data.webPages.value")
        hits = [
            SearchHit(
                str(p.get("name") or ""),
                str(p.get("url") or ""),
                str(p.get("summary") or p.get("snippet") or ""),
                str(p.get("siteName") or ""),
                str(p.get("datePublished") or p.get("dateLastCrawled") or ""),
            )
            for p in pages[:count]
            if isinstance(p, Mapping) and p.get("url")
        ]
        return SearchResults(self.name, hits)


async def _request(backend: str, method: str, url: str, seconds: float, **kw: Any) -> Any:
    import httpx2  # loads with the first search, not with every front end

    try:
        async with httpx2.AsyncClient(timeout=seconds, trust_env=False) as client:
            response = await client.request(method, url, **kw)
    except httpx2.TimeoutException:
        raise SearchError(f"{backend} at {url} did not answer within {seconds:g}s") from None
    except httpx2.HTTPError as exc:
        raise SearchError(f"{backend} at {url} cannot be reached: {exc}") from None
    if response.status_code in (401, 403):
        hint = (
            " (SearXNG refuses the JSON format unless `json` is in search.formats of its "
            "settings.yml)"
            if backend == "searxng"
            else " (check the API key in the secure variable)"
        )
        raise SearchError(f"{backend} refused the request: HTTP {response.status_code}{hint}")
    if response.status_code >= 400:
        raise SearchError(f"{backend} answered HTTP {response.status_code}: {response.text[:200]}")
    try:
        return response.json()
    except ValueError:
        raise SearchError(f"{backend} answered something that is not JSON") from None


def create_backend(settings: Settings, lookup: Callable[[str], str | None]) -> SearchBackend:
    """The backend settings `web.search` names (raises SearchError when there is none
    or its key is missing; `lookup` reads secure variables)."""
    config = settings.web.search
    if not config:
        raise SearchError(HOW_TO_CONFIGURE)
    timeout = config.timeout_seconds or 20.0
    if config.backend == "searxng":
        if not config.url:
            raise SearchError(
                'web.search: the searxng backend needs "url", e.g. "http://127.0.0.1:8888"'
            )
        return SearxngBackend(config.url, timeout)
    variable = config.key_variable or "BOCHA_API_KEY"
    key = lookup(variable)
    if not key:
        raise SearchError(
            f"web.search: the bocha backend needs its API key in the secure variable "
            f"{variable}; store it with `karyi var set {variable}` (web.search.keyVariable "
            "names another variable)"
        )
    return BochaBackend(config.url or BOCHA_URL, key, timeout)


def render(results: SearchResults, query: str) -> str:
    """Results as numbered Markdown for the model."""
    if not results.hits:
        text = f'No results for "{query}" ({results.backend}).'
        return f"{text}\n{results.note}" if results.note else text
    lines = [f'Search results for "{query}" ({results.backend}, {len(results.hits)}):', ""]
    for n, hit in enumerate(results.hits, 1):
        meta = " · ".join(x for x in (hit.site, hit.date) if x)
        lines.append(f"{n}. [{hit.title or hit.url}]({hit.url})" + (f" — {meta}" if meta else ""))
        if hit.snippet:
            lines.append(f"   {' '.join(hit.snippet.split())}")
    if results.note:
        lines += ["", results.note]
    return "\n".join(lines)
