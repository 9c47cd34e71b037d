"""Fetching web pages, for every profile over `tools/webclient`.

- research: `web_fetch(url)`
- vecli (Gemini CLI): `web_fetch(prompt)` — the prompt holds up to 20 URLs and says
  what to do with them; the pages are returned with the request, and the model does the
  processing itself

Fetching asks first (`confirm`, the URLs shown), since a fetched URL can carry data
out; hosts in settings `web.allowedHosts` are fetched without asking, and "allow
always" remembers the host, not every URL.
"""

from __future__ import annotations

import asyncio
import fnmatch
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import Permission, PermissionVerdict, ToolResult
from karyi.tools.base import Confirmation
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class

if TYPE_CHECKING:
    from karyi.tools.webclient.extract import Page
    from karyi.tools.webclient.fetch import Fetched

MAX_URLS = 20
_URL = re.compile(r"https?://[^\s<>\"'`)\]}]+")
_FAILURE_CODES = {
    "invalid_url": ErrorCode.INVALID_TOOL_INPUT,
    "blocked": ErrorCode.PERMISSION_DENIED,
    "timeout": ErrorCode.TIMEOUT,
    "not_text": ErrorCode.BINARY_FILE,
}


def host_allowed(host: str, patterns: list[str]) -> bool:
    """Whether `host` matches settings `web.allowedHosts` (`docs.python.org`, `*.rs`)."""
    host = host.lower().rstrip(".")
    return any(fnmatch.fnmatchcase(host, p.lower().rstrip(".")) for p in patterns)


def _hosts(urls: list[str]) -> list[str]:
    from karyi.tools.webclient.fetch import FetchError, check_url

    out: list[str] = []
    for url in urls:
        try:
            host = check_url(url).host
        except FetchError:
            continue
        if host not in out:
            out.append(host)
    return out


@param_class
class WebFetchParams(ToolParams):
    """research `web_fetch`'s parameters."""

    url: str = arg(min_length=1, description="The full http(s) URL to fetch")


@param_class
class VecliWebFetchParams(ToolParams):
    """vecli `web_fetch`'s parameters."""

    prompt: str = arg(
        min_length=1,
        description="A comprehensive prompt that includes the URL(s) (up to 20) to "
        "fetch and specific instructions on how to process their content (e.g., "
        '"Summarize https://example.com/article and extract key points from '
        'https://another.com/data"). Must contain at least one URL starting with '
        "http:// or https://.",
    )


F = TypeVar("F")


class _Fetcher(TypedTool[F]):
    """What both `web_fetch` tools share: permission by host, the fetch, the rendering."""

    plan_safe = True

    permission = Permission.CONFIRM

    def urls(self, params: Mapping[str, Any]) -> list[str]:
        """The URLs this call fetches."""
        raise NotImplementedError

    def permission_for(
        self, params: Mapping[str, Any], ctx: ToolContext
    ) -> PermissionVerdict | None:
        """Hosts in `web.allowedHosts` are fetched without asking."""
        hosts = _hosts(self.urls(params))
        allowed = list(ctx.settings.web.allowed_hosts)
        if hosts and all(host_allowed(h, allowed) for h in hosts):
            return PermissionVerdict(Permission.AUTO, f"{', '.join(hosts)} in web.allowedHosts")
        return None

    def approval_key(self, params: Mapping[str, Any]) -> str:
        """ "Allow always" remembers the hosts."""
        return f"{self.name} {' '.join(sorted(_hosts(self.urls(params))))}"

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Confirmation | None:
        """The URLs to fetch."""
        urls = self.urls(params)
        return Confirmation(
            kind="fetch",
            title=f"Fetch {urls[0]}" if len(urls) == 1 else f"Fetch {len(urls)} URLs",
            details="\n".join(urls),
            url=urls[0] if urls else None,
        )

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """Fetches run in parallel."""
        return frozenset()


async def fetch_page(url: str, ctx: ToolContext) -> tuple[Fetched, Page]:
    """Fetch `url` and turn it into text (raises ToolFailure with a precise message)."""
    # httpx2 and the HTML extractor load with the first fetch, not with every front end.
    from karyi.tools.webclient.extract import to_page
    from karyi.tools.webclient.fetch import FetchError, FetchLimits, fetch

    try:
        fetched = await fetch(url, FetchLimits.from_settings(ctx.settings))
        page = await asyncio.to_thread(to_page, fetched)
    except FetchError as exc:
        code = _FAILURE_CODES.get(exc.kind, ErrorCode.TOOL_ERROR)
        if exc.kind == "http_status" and " 404 " in exc.message + " ":
            code = ErrorCode.NOT_FOUND
        raise ToolFailure(code, f"web_fetch: {exc.message}") from None
    return fetched, page


def render_page(fetched: Fetched, page: Page, budget: int) -> tuple[str, dict[str, Any]]:
    """The page for the model (cut to `budget` characters, saying so) and its facts."""
    how = {"html": "HTML converted to Markdown", "pdf": "PDF text", "text": "text"}[page.kind]
    head = [f"Content of {fetched.url} ({how}"]
    if page.note:
        head.append(f"; {page.note}")
    head.append("):")
    lines = ["".join(head)]
    if fetched.rewritten:
        lines.append(f"(a GitHub page: fetched the raw file {fetched.rewritten})")
    if fetched.redirects:
        lines.append(f"(redirected to {fetched.final_url})")
    if page.title:
        lines.append(f"Title: {page.title}")
    text = page.text
    cut = len(text) > budget
    if cut:
        text = text[:budget]
    lines += ["", text or "(the page has no text)"]
    if cut:
        lines.append(
            f"\n[truncated: showing {budget:,} of {len(page.text):,} characters (web.maxChars)]"
        )
    if fetched.truncated:
        lines.append(
            f"[the body was cut at {len(fetched.body):,} bytes (web.maxBytes); the rest was "
            "not downloaded]"
        )
    facts = {
        "url": fetched.url,
        "finalUrl": fetched.final_url,
        "status": fetched.status,
        "contentType": fetched.mime,
        "kind": page.kind,
        "title": page.title,
        "chars": len(page.text),
        "truncated": cut or fetched.truncated,
        "redirects": fetched.redirects,
    }
    return "\n".join(lines), facts


class WebFetch(_Fetcher[WebFetchParams]):
    """research `web_fetch(url)`."""

    name = "web_fetch"
    display_name = "Web Fetch"
    description = (
        "Fetch a web page or PDF and return its content as Markdown text (HTML is reduced "
        "to its main content; GitHub file pages are fetched raw). http and https only."
    )
    example = {"url": "https://docs.python.org/3/library/asyncio.html"}

    def urls(self, params: Mapping[str, Any]) -> list[str]:
        """See `_Fetcher.urls`."""
        return [self.args(params).url.strip()]

    def check(self, params: Mapping[str, Any]) -> str | None:
        """The URL must be http(s) with a host, and not a metadata service."""
        from karyi.tools.webclient.fetch import FetchError, check_url

        try:
            check_url(self.urls(params)[0])
        except FetchError as exc:
            return f"url: {exc.message}"
        return None

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Fetch {self.args(params).url}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Fetch and convert."""
        fetched, page = await fetch_page(self.urls(params)[0], ctx)
        text, facts = render_page(fetched, page, ctx.settings.web.max_chars)
        shown = f"Fetched {fetched.final_url} ({page.kind}, {len(page.text):,} characters)"
        return ToolResult.ok(text, display=shown, data=facts)


class VecliWebFetch(_Fetcher[VecliWebFetchParams]):
    """Gemini CLI's `web_fetch(prompt)`: the URLs are found in the prompt."""

    name = "web_fetch"
    display_name = "WebFetch"
    description = (
        "Processes content from URL(s), including local and private network addresses "
        "(e.g., localhost) when the user allows them, embedded in a prompt. Include up to "
        "20 URLs and instructions (e.g., summarize, extract specific data) directly in the "
        "'prompt' parameter. The pages are fetched and returned as Markdown with the "
        "request, for you to carry out."
    )
    example = {"prompt": "Summarize https://example.com/article in three bullet points"}

    def urls(self, params: Mapping[str, Any]) -> list[str]:
        """Every distinct URL in the prompt, in order."""
        found: list[str] = []
        for url in _URL.findall(self.args(params).prompt):
            url = url.rstrip(".,;:!?")
            if url not in found:
                found.append(url)
        return found

    def check(self, params: Mapping[str, Any]) -> str | None:
        """At least one URL, at most 20, each fetchable."""
        urls = self.urls(params)
        if not urls:
            return "prompt: the prompt must contain at least one valid URL (http:// or https://)"
        if len(urls) > MAX_URLS:
            return f"prompt: at most {MAX_URLS} URLs, found {len(urls)}"
        from karyi.tools.webclient.fetch import FetchError, check_url

        for url in urls:
            try:
                check_url(url)
            except FetchError as exc:
                return f"prompt: {exc.message}"
        return None

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        prompt = self.args(params).prompt
        return f"Processing URLs and instructions from prompt: {prompt[:100]!r}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Fetch every URL (in parallel); a failed URL is reported among the others."""
        urls = self.urls(params)
        budget = ctx.settings.web.max_chars // len(urls)
        outcomes = await asyncio.gather(
            *(fetch_page(url, ctx) for url in urls), return_exceptions=True
        )
        parts = [f"The user's request: {self.args(params).prompt}", ""]
        facts: list[dict[str, Any]] = []
        for url, outcome in zip(urls, outcomes, strict=True):
            if isinstance(outcome, ToolFailure):
                parts.append(f"Could not fetch {url}: {outcome.message}")
                facts.append({"url": url, "error": outcome.message})
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                text, fact = render_page(*outcome, budget)
                parts.append(text)
                facts.append(fact)
            parts.append("")
        failures = [o for o in outcomes if isinstance(o, ToolFailure)]
        if len(failures) == len(urls):
            code = failures[0].code if len(failures) == 1 else ErrorCode.TOOL_ERROR
            raise ToolFailure(code, "; ".join(f.message for f in failures))
        done = sum(1 for f in facts if "error" not in f)
        return ToolResult.ok(
            "\n".join(parts).rstrip(),
            display=f"Fetched {done} of {len(urls)} URL(s)",
            data={"pages": facts},
        )
