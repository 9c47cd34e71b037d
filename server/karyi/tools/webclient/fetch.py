"""Fetching one URL for `web_fetch`: http(s) only, every address checked, every limit kept.

- Only `http` and `https`; a GitHub `blob` page is fetched raw from
  raw.githubusercontent.com (the file, not the page around it).
- Every connection goes through `GuardedBackend`: the host name is resolved here, every
  address it resolves to is judged by `addresses.judge`, and the connection is made to
  an address that was judged, so DNS cannot answer differently between check and use.
- Redirects are followed by hand, at most `web.maxRedirects`, each hop's URL checked
  like the first; a loop is reported as one.
- The body is read as a stream up to `web.maxBytes` (after decompression, so a small
  compressed bomb stays small); the whole fetch, redirects included, must end within
  `web.timeoutSeconds`.
- No proxy from the environment (`trust_env` off): what is checked is what is reached.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

import httpcore2
import httpx2

from karyi.core.addresses import judge, judge_host
from karyi.settings import Settings

REDIRECTS = (301, 302, 303, 307, 308)
USER_AGENT = "Mozilla/5.0 (compatible; Karyi web_fetch; +https://github.com/karyi)"
ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.9,*/*;q=0.5"
_GITHUB_BLOB = re.compile(r"^https?://github\.com/([^/]+)/([^/]+)/blob/(.+)$")


class FetchError(Exception):
    """A fetch that did not produce a page; `kind` names why (for the error code)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class Blocked(Exception):
    """A connection refused by the address policy."""


@dataclass(frozen=True)
class FetchLimits:
    """The limits and address policy of one fetch (from settings `web`)."""

    timeout: float = 30.0
    max_bytes: int = 5_000_000
    max_redirects: int = 5
    allow_private: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> FetchLimits:
        """The limits the user configured."""
        web = settings.web
        return cls(
            timeout=web.timeout_seconds,
            max_bytes=web.max_bytes,
            max_redirects=web.max_redirects,
            allow_private=web.allow_private,
        )


@dataclass(frozen=True)
class Fetched:
    """A response body and where it came from."""

    url: str
    final_url: str
    status: int
    mime: str
    charset: str | None
    body: bytes
    truncated: bool = False
    redirects: list[str] = field(default_factory=list)
    rewritten: str | None = None


def raw_github(url: str) -> str | None:
    """The raw.githubusercontent.com URL of a GitHub blob page, else None."""
    m = _GITHUB_BLOB.match(url)
    return f"https://raw.githubusercontent.com/{m[1]}/{m[2]}/{m[3]}" if m else None


def check_url(url: str) -> httpx2.URL:
    """Parse `url`, refusing what is not http(s) with a host, or names a metadata service."""
    try:
        parsed = httpx2.URL(url)
    except Exception as exc:
        raise FetchError("invalid_url", f"{url!r} is not a valid URL ({exc})") from None
    if parsed.scheme not in ("http", "https"):
        scheme = parsed.scheme or "none"
        raise FetchError(
            "invalid_url", f"{url}: only http and https URLs can be fetched (scheme {scheme})"
        )
    if not parsed.host:
        raise FetchError("invalid_url", f"{url}: the URL names no host")
    verdict = judge_host(parsed.host)
    if not verdict.allowed:
        raise FetchError("blocked", f"{url}: refused: {parsed.host} is {verdict.reason}")
    return parsed


class GuardedBackend(httpcore2.AsyncNetworkBackend):
    """A network backend that connects only to addresses the policy allows."""

    def __init__(self, allow_private: bool) -> None:
        self.allow_private = allow_private
        self._inner = httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        """Resolve `host`, judge every address, connect to the first allowed one."""
        addresses = await _resolve(host, port)
        for ip in addresses:
            verdict = judge(ip, allow_private=self.allow_private)
            if not verdict.allowed:
                raise Blocked(verdict.about(host, ip))
        last: Exception | None = None
        for ip in addresses:
            try:
                return await self._inner.connect_tcp(
                    str(ip), port, timeout, local_address, socket_options
                )
            except httpcore2.ConnectError as exc:
                last = exc
        assert last is not None
        raise last

    async def sleep(self, seconds: float) -> None:
        """See `httpcore2.AsyncNetworkBackend`."""
        await self._inner.sleep(seconds)


async def _resolve(host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise httpcore2.ConnectError(f"cannot resolve {host}: {exc.strerror}") from None
    seen: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if ip not in seen:
            seen.append(ip)
    if not seen:
        raise httpcore2.ConnectError(f"cannot resolve {host}: no address")
    return seen


class GuardedTransport(httpx2.AsyncHTTPTransport):
    """httpx's transport over a `GuardedBackend`."""

    def __init__(self, allow_private: bool) -> None:
        super().__init__(trust_env=False)
        # httpx offers no public way to choose the network backend: the pool is rebuilt
        # with the same TLS context over ours.
        ssl_context = self._pool._ssl_context
        self._pool = httpcore2.AsyncConnectionPool(
            ssl_context=ssl_context, network_backend=GuardedBackend(allow_private)
        )


def guarded_client(limits: FetchLimits) -> httpx2.AsyncClient:
    """An httpx client for `fetch`: no automatic redirects, no environment proxies."""
    return httpx2.AsyncClient(
        transport=GuardedTransport(limits.allow_private),
        follow_redirects=False,
        trust_env=False,
        timeout=httpx2.Timeout(limits.timeout),
        headers={"user-agent": USER_AGENT, "accept": ACCEPT},
    )


async def fetch(url: str, limits: FetchLimits) -> Fetched:
    """GET `url` under `limits` (see the module docstring). Raises FetchError."""
    rewritten = raw_github(url)
    target = rewritten or url
    try:
        async with asyncio.timeout(limits.timeout), guarded_client(limits) as client:
            return await _follow(client, url, target, limits, rewritten)
    except TimeoutError:
        raise FetchError(
            "timeout",
            f"{url}: no complete answer within {limits.timeout:g}s (web.timeoutSeconds); "
            "the server is too slow or the body never ends",
        ) from None


async def _follow(
    client: httpx2.AsyncClient,
    url: str,
    target: str,
    limits: FetchLimits,
    rewritten: str | None,
) -> Fetched:
    hops: list[str] = []
    current = target
    while True:
        check_url(current)
        status, location, fetched = await _get(client, current, limits)
        if location is None:
            assert fetched is not None
            return Fetched(
                url,
                current,
                status,
                fetched[0],
                fetched[1],
                fetched[2],
                fetched[3],
                hops,
                rewritten,
            )
        nxt = urljoin(current, location)
        hops.append(current)
        if nxt in hops:
            chain = " → ".join([*hops[hops.index(nxt) :], nxt])
            raise FetchError("redirect_loop", f"{url}: redirect loop: {chain}")
        if len(hops) > limits.max_redirects:
            raise FetchError(
                "too_many_redirects",
                f"{url}: more than {limits.max_redirects} redirects (web.maxRedirects); "
                f"last went to {nxt}",
            )
        current = nxt


async def _get(
    client: httpx2.AsyncClient, url: str, limits: FetchLimits
) -> tuple[int, str | None, tuple[str, str | None, bytes, bool] | None]:
    """One request: (status, redirect location or None, (mime, charset, body, truncated))."""
    try:
        async with client.stream("GET", url) as response:
            if response.status_code in REDIRECTS and "location" in response.headers:
                return response.status_code, response.headers["location"], None
            if response.status_code >= 400:
                raise FetchError(
                    "http_status",
                    f"{url}: the server answered {response.status_code} "
                    f"{response.reason_phrase}".rstrip(),
                )
            body, truncated = await _read(response, limits.max_bytes)
            mime, charset = _content_type(response.headers.get("content-type", ""))
            return response.status_code, None, (mime, charset, body, truncated)
    except Blocked as exc:
        raise FetchError("blocked", f"{url}: refused: {exc}") from None
    except httpx2.TimeoutException:
        raise FetchError(
            "timeout", f"{url}: timed out after {limits.timeout:g}s (web.timeoutSeconds)"
        ) from None
    except httpx2.HTTPError as exc:
        raise FetchError("connection", f"{url}: {type(exc).__name__}: {exc}") from None


async def _read(response: httpx2.Response, limit: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        take = chunk[: limit - size]
        chunks.append(take)
        size += len(take)
        if size >= limit:
            return b"".join(chunks), True
    return b"".join(chunks), False


def _content_type(header: str) -> tuple[str, str | None]:
    mime, _, rest = header.partition(";")
    m = re.search(r"charset\s*=\s*\"?([\w.:-]+)", rest, re.I)
    return mime.strip().lower(), (m[1] if m else None)
