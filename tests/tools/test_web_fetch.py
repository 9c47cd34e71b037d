"""web_fetch against a real local web server: HTML, PDF, redirects, limits, refusals."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from karyi.core.results import Permission
from karyi.settings import Settings
from karyi.tools.builtin.web_fetch import VecliWebFetch, WebFetch
from karyi.tools.context import ToolContext
from karyi.tools.webclient.fetch import raw_github
from karyi.workspace.workspace import Workspace
from tests.support.web_server import WebServer, minimal_pdf, serve

ARTICLE = """<html><head><title>Boiling points</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Boiling points</h1>
<p>Water boils at <b>100 °C</b> at sea level. This paragraph is long enough, with commas,
clauses, and details, that readability takes it for the main content of the page.</p>
<h2>Code</h2><pre><code>def boils(t):
    return t >= 100
</code></pre>
<p>See <a href="https://example.com/more">more</a>.</p></article>
<footer>Copyright 2024 Chem Corp</footer><script>tracking()</script></body></html>"""


@pytest.fixture
def web() -> Iterator[WebServer]:
    yield from serve()


def context(ws_root: Path, **web: Any) -> ToolContext:
    values = {**Settings().values["web"], "allowPrivate": True, **web}
    return ToolContext(Workspace.open(ws_root), Settings().with_values(web=values))


async def fetch(ctx: ToolContext, url: str) -> Any:
    return await WebFetch().run({"url": url}, ctx)


async def test_html_becomes_readable_markdown(web: WebServer, ws_root: Path) -> None:
    web.route("/article", ARTICLE)
    result = await fetch(context(ws_root), f"{web.url}/article")
    assert result.success, result.llm_content
    text = result.llm_content
    assert text.startswith(f"Content of {web.url}/article (HTML converted to Markdown):")
    assert "Title: Boiling points" in text
    assert "# Boiling points" in text and "**100 °C**" in text
    assert "```\ndef boils(t):\n    return t >= 100\n```" in text
    assert "[more](https://example.com/more)" in text
    assert "tracking()" not in text and "Copyright" not in text
    assert result.data["kind"] == "html" and result.data["status"] == 200


async def test_pdf_becomes_text(web: WebServer, ws_root: Path) -> None:
    web.route("/paper.pdf", minimal_pdf("Water boils at 100 degrees"), "application/pdf")
    result = await fetch(context(ws_root), f"{web.url}/paper.pdf")
    assert result.success, result.llm_content
    assert "(PDF text; 1 page(s)):" in result.llm_content
    assert "## Page 1\n\nWater boils at 100 degrees" in result.llm_content


async def test_plain_text_and_json_are_shown_as_they_are(web: WebServer, ws_root: Path) -> None:
    web.route("/data.json", '{"a": [1, 2]}', "application/json")
    result = await fetch(context(ws_root), f"{web.url}/data.json")
    assert result.llm_content.endswith('\n{"a": [1, 2]}')


async def test_redirects_are_followed_and_reported(web: WebServer, ws_root: Path) -> None:
    web.route("/article", ARTICLE)
    web.redirect("/old", "/moved")
    web.redirect("/moved", f"{web.url}/article", status=301)
    result = await fetch(context(ws_root), f"{web.url}/old")
    assert result.success
    assert f"(redirected to {web.url}/article)" in result.llm_content
    assert result.data["redirects"] == [f"{web.url}/old", f"{web.url}/moved"]


async def test_a_redirect_loop_is_a_clear_error(web: WebServer, ws_root: Path) -> None:
    web.redirect("/a", "/b")
    web.redirect("/b", "/a")
    result = await fetch(context(ws_root), f"{web.url}/a")
    assert not result.success
    assert result.error is not None and result.error.message == (
        f"web_fetch: {web.url}/a: redirect loop: {web.url}/a → {web.url}/b → {web.url}/a"
    )


async def test_too_many_redirects(web: WebServer, ws_root: Path) -> None:
    for n in range(4):
        web.redirect(f"/r{n}", f"/r{n + 1}")
    result = await fetch(context(ws_root, maxRedirects=2), f"{web.url}/r0")
    assert result.error is not None
    assert "more than 2 redirects (web.maxRedirects); last went to" in result.error.message


async def test_a_redirect_to_another_scheme_is_refused(web: WebServer, ws_root: Path) -> None:
    web.redirect("/away", "file:///etc/passwd")
    result = await fetch(context(ws_root), f"{web.url}/away")
    assert result.error is not None and result.error.code == "invalid_tool_input"
    assert "only http and https URLs can be fetched (scheme file)" in result.error.message


async def test_a_huge_body_is_cut_at_the_limit(web: WebServer, ws_root: Path) -> None:
    web.route("/huge.txt", "x" * 200_000, "text/plain")
    result = await fetch(context(ws_root, maxBytes=10_000), f"{web.url}/huge.txt")
    assert result.success
    assert result.llm_content.count("x") >= 10_000
    assert "[the body was cut at 10,000 bytes (web.maxBytes)" in result.llm_content
    assert result.data["truncated"] is True


async def test_long_text_is_cut_for_the_model(web: WebServer, ws_root: Path) -> None:
    web.route("/long.txt", "y" * 5000, "text/plain")
    result = await fetch(context(ws_root, maxChars=1000), f"{web.url}/long.txt")
    assert "[truncated: showing 1,000 of 5,000 characters (web.maxChars)]" in result.llm_content


async def test_a_huge_pdf_is_refused(web: WebServer, ws_root: Path) -> None:
    web.route("/big.pdf", minimal_pdf("x") + b"%" * 5000, "application/pdf")
    result = await fetch(context(ws_root, maxBytes=1024), f"{web.url}/big.pdf")
    assert result.error is not None
    assert "the PDF is larger than the limit" in result.error.message


async def test_a_body_that_never_ends_times_out(web: WebServer, ws_root: Path) -> None:
    web.stall("/slow")
    result = await fetch(context(ws_root, timeoutSeconds=0.5), f"{web.url}/slow")
    assert result.error is not None and result.error.code == "timeout"
    assert "within 0.5s (web.timeoutSeconds)" in result.error.message


async def test_a_page_that_is_not_text(web: WebServer, ws_root: Path) -> None:
    web.route("/logo.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "image/png")
    result = await fetch(context(ws_root), f"{web.url}/logo.png")
    assert result.error is not None and result.error.code == "binary_file"
    assert result.error.message == (
        f"web_fetch: {web.url}/logo.png is image/png (1.0 KB), not text, HTML or PDF: "
        "nothing to show"
    )


async def test_http_errors_are_reported(web: WebServer, ws_root: Path) -> None:
    result = await fetch(context(ws_root), f"{web.url}/missing")
    assert result.error is not None and result.error.code == "tool_not_found"
    assert result.error.message.endswith("the server answered 404 Not Found")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", "is a cloud metadata address"),
        ("http://[fd00:ec2::254]/latest/", "is a cloud metadata address"),
        ("http://metadata.google.internal/computeMetadata/v1/", "a cloud metadata service"),
        ("http://169.254.1.1/", "is a link-local address"),
        ("http://[::ffff:169.254.169.254]/", "is a cloud metadata address"),
    ],
)
async def test_metadata_and_link_local_are_always_refused(
    ws_root: Path, url: str, reason: str
) -> None:
    result = await fetch(context(ws_root, allowPrivate=True), url)
    assert not result.success and result.error is not None
    assert result.error.code in ("permission_denied", "invalid_tool_input")
    assert reason in result.error.message and "(always refused)" in result.error.message


async def test_private_addresses_need_the_setting(web: WebServer, ws_root: Path) -> None:
    web.route("/article", ARTICLE)
    port = web.url.rsplit(":", 1)[1]
    result = await fetch(context(ws_root, allowPrivate=False), f"http://localhost:{port}/article")
    assert result.error is not None and result.error.code == "permission_denied"
    assert "localhost resolves to " in result.error.message
    assert "set web.allowPrivate to true in your user settings" in result.error.message
    assert web.requests == []


async def test_a_redirect_into_a_refused_address_is_refused(web: WebServer, ws_root: Path) -> None:
    web.redirect("/hop", "http://169.254.169.254/latest/meta-data/")
    result = await fetch(context(ws_root), f"{web.url}/hop")
    assert result.error is not None and "cloud metadata address" in result.error.message


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/file", "url: ftp://example.com/file: only http and https URLs"),
        ("not a url", "url: not a url: only http and https URLs can be fetched (scheme none)"),
        ("http://", "url: http://: the URL names no host"),
    ],
)
async def test_bad_urls_are_refused_before_anything_runs(
    ws_root: Path, url: str, message: str
) -> None:
    assert (WebFetch().validate({"url": url}) or "").startswith(message)


def test_github_blob_pages_are_fetched_raw() -> None:
    assert raw_github("https://github.com/psf/requests/blob/main/README.md") == (
        "https://raw.githubusercontent.com/psf/requests/main/README.md"
    )
    assert raw_github("https://github.com/psf/requests/tree/main") is None


def test_fetch_asks_first_unless_the_host_is_allowed(ws_root: Path) -> None:
    tool = WebFetch()
    params = {"url": "https://docs.python.org/3/"}
    ctx = context(ws_root)
    assert tool.permission is Permission.CONFIRM and tool.permission_for(params, ctx) is None
    confirmation = tool.confirmation(params, ctx)
    assert confirmation is not None and confirmation.kind == "fetch"
    assert confirmation.url == "https://docs.python.org/3/"
    allowed = tool.permission_for(params, context(ws_root, allowedHosts=["*.python.org"]))
    assert allowed is not None and allowed.permission is Permission.AUTO
    assert tool.approval_key(params) == "web_fetch docs.python.org"


async def test_vecli_web_fetch_takes_urls_from_the_prompt(web: WebServer, ws_root: Path) -> None:
    web.route("/article", ARTICLE)
    web.route("/notes.txt", "plain notes", "text/plain")
    prompt = f"Compare {web.url}/article and {web.url}/notes.txt, and {web.url}/missing."
    result = await VecliWebFetch().run({"prompt": prompt}, context(ws_root))
    assert result.success, result.llm_content
    text = result.llm_content
    assert text.startswith(f"The user's request: {prompt}")
    assert "# Boiling points" in text and "plain notes" in text
    assert f"Could not fetch {web.url}/missing: web_fetch:" in text
    assert result.display == "Fetched 2 of 3 URL(s)"


def test_vecli_web_fetch_needs_a_url(ws_root: Path) -> None:
    assert VecliWebFetch().validate({"prompt": "summarise the docs"}) == (
        "prompt: the prompt must contain at least one valid URL (http:// or https://)"
    )
    many = " ".join(f"https://e.com/{n}" for n in range(21))
    assert VecliWebFetch().validate({"prompt": many}) == "prompt: at most 20 URLs, found 21"
