"""From a fetched body to text a model can read: HTML as Markdown, PDF as text.

HTML goes through readability-lxml (the page's main content, without navigation and
boilerplate) and markdownify (headings, lists, links, code blocks and tables kept as
Markdown). When readability keeps too little of a page (a listing, a docs index), the
whole body is converted instead. PDFs are read with pypdf, page by page. Other text
(plain, JSON, XML, source code) is shown as it is; anything else is refused as not text.
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass

from karyi.tools.webclient.fetch import Fetched, FetchError
from karyi.workspace.files import human_size, looks_binary

log = logging.getLogger(__name__)

HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = (
    "application/json",
    "application/xml",
    "application/javascript",
    "application/x-javascript",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
    "application/x-sh",
    "application/sql",
)
MIN_ARTICLE_SHARE = 0.25
"""Below this share of the page's text, readability's extract is taken to have failed."""
_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?([\w.:-]+)", re.I)
_BLANKS = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class Page:
    """A fetched document as text."""

    kind: str  # html | pdf | text
    title: str
    text: str
    note: str = ""


def kind_of(fetched: Fetched) -> str:
    """`html`, `pdf`, `text`, or `binary`, from the content type and the first bytes."""
    mime, head = fetched.mime, fetched.body[:1024]
    if mime == "application/pdf" or head.startswith(b"%PDF-"):
        return "pdf"
    if mime in HTML_TYPES:
        return "html"
    if mime.startswith("text/") or mime in TEXT_TYPES or mime.endswith(("+json", "+xml")):
        return "text"
    if mime in ("", "application/octet-stream", "binary/octet-stream") and not looks_binary(head):
        lowered = head.lstrip().lower()
        return "html" if lowered.startswith((b"<!doctype html", b"<html")) else "text"
    return "binary"


def decode(fetched: Fetched) -> str:
    """The body as text: the declared charset, a `<meta charset>`, else UTF-8."""
    charset = fetched.charset
    if charset is None:
        m = _META_CHARSET.search(fetched.body[:4096])
        charset = m[1].decode("ascii", "replace") if m else "utf-8"
    try:
        return fetched.body.decode(charset, errors="replace")
    except LookupError:
        return fetched.body.decode("utf-8", errors="replace")


def to_page(fetched: Fetched) -> Page:
    """The page as text (raises FetchError `not_text` for images, archives and the like)."""
    kind = kind_of(fetched)
    if kind == "pdf":
        if fetched.truncated:
            raise FetchError(
                "too_large",
                f"{fetched.final_url}: the PDF is larger than the limit of "
                f"{human_size(len(fetched.body))} (web.maxBytes) and cannot be read in part",
            )
        return pdf_page(fetched.body, fetched.final_url)
    if kind == "html":
        return html_page(decode(fetched))
    if kind == "text":
        return Page("text", "", decode(fetched))
    shown = fetched.mime or "an unknown type"
    raise FetchError(
        "not_text",
        f"{fetched.final_url} is {shown} ({human_size(len(fetched.body))}"
        f"{' or more' if fetched.truncated else ''}), not text, HTML or PDF: nothing to show",
    )


def html_page(html: str) -> Page:
    """Readable Markdown of an HTML page (see the module docstring)."""
    from markdownify import markdownify
    from readability import Document

    whole = _body_markdown(html)
    title = ""
    article = ""
    try:
        doc = Document(html)
        title = doc.short_title() or ""
        article = _tidy(markdownify(doc.summary(html_partial=True), heading_style="ATX"))
    except Exception as exc:  # readability gives up on odd markup: fall back to the body
        log.debug("readability failed: %s", exc)
    if len(article) >= MIN_ARTICLE_SHARE * len(whole) and article:
        return Page("html", title, article)
    return Page("html", title, whole, note="the whole page (no main article was found)")


def _body_markdown(html: str) -> str:
    from markdownify import markdownify

    return _tidy(
        markdownify(html, heading_style="ATX", strip=["script", "style", "noscript", "svg"])
    )


def _tidy(markdown: str) -> str:
    lines = [line.rstrip() for line in markdown.splitlines()]
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()


def pdf_page(data: bytes, url: str) -> Page:
    """The text of a PDF, page by page."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise FetchError("bad_pdf", f"{url}: the PDF is encrypted and cannot be read")
        pages = [page.extract_text() or "" for page in reader.pages]
        title = str(reader.metadata.get("/Title") or "") if reader.metadata else ""
    except FetchError:
        raise
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise FetchError("bad_pdf", f"{url}: not a readable PDF ({exc})") from None
    parts = [f"## Page {n}\n\n{text.strip()}" for n, text in enumerate(pages, 1) if text.strip()]
    if not parts:
        return Page("pdf", title, "", note=f"{len(pages)} page(s) without extractable text")
    return Page("pdf", title, "\n\n".join(parts), note=f"{len(pages)} page(s)")
