"""The network of sandboxed commands when `shell.sandbox.allowedDomains` lists domains.

The sandbox has no network of its own (a fresh namespace with only a loopback). This
proxy runs in Karyi, outside it, on a Unix socket that is bound into the sandbox; inside,
netbridge.py listens on the sandbox's loopback, forwards each connection to the socket
and sets `HTTP_PROXY`/`HTTPS_PROXY`. The proxy reads one request head: `CONNECT
host:port` (HTTPS and any TLS) or an absolute-form HTTP request (`GET http://host/...`),
and lets it through only when the host name is allowed (`deniedDomains` first, then
`allowedDomains`). The name is then resolved once, here, every address it resolves to
judged (core/addresses.py), and the connection made to a judged address: a private or
loopback one only for a name listed exactly (never through a wildcard), so an allowed
name whose DNS answer turns to 127.0.0.1 or the LAN (DNS rebinding) reaches nothing.
Anything else gets `403` with the reason, and the host is remembered so that the
command's result names it. See docs/security.md#the-network-allowlist.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from karyi.core.addresses import IP, judge, judge_host

log = logging.getLogger(__name__)

_HEAD_LIMIT = 64 * 1024


def _norm(host: str) -> str:
    return host.strip().lower().rstrip(".")


def domain_matches(host: str, pattern: str) -> bool:
    """`example.com` matches itself; `*.example.com` any name under it (not itself)."""
    host, pattern = _norm(host), _norm(pattern)
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


@dataclass(frozen=True)
class DomainPolicy:
    """Which host names sandboxed commands may reach."""

    allowed: tuple[str, ...]
    denied: tuple[str, ...] = ()

    def refusal(self, host: str) -> str | None:
        """Why `host` is refused, or None when it may be reached."""
        if any(domain_matches(host, p) for p in self.denied):
            return "in shell.sandbox.deniedDomains"
        if not any(domain_matches(host, p) for p in self.allowed):
            return "not in shell.sandbox.allowedDomains"
        return None

    def listed_exactly(self, host: str) -> bool:
        """Whether `allowedDomains` names `host` itself (not through a wildcard): only such
        a name may reach a private or loopback address (`localhost`, `10.0.0.7`, an
        internal mirror's name)."""
        return any(not p.startswith("*") and domain_matches(host, p) for p in self.allowed)

    def address_refusal(self, host: str, addresses: list[IP]) -> str | None:
        """Why `host`, resolved to `addresses`, is refused (any refused address refuses
        the name), or None."""
        if not (named := judge_host(host)).allowed:
            return named.reason
        local = self.listed_exactly(host)
        for ip in addresses:
            verdict = judge(ip, allow_private=local, private_refused=_PRIVATE)
            if not verdict.allowed:
                return verdict.about(host, ip)
        return None


_PRIVATE = (
    "a private or loopback address, reached only by a name shell.sandbox.allowedDomains "
    "lists exactly (not through a wildcard)"
)

Resolver = Callable[[str, int], Awaitable[list[IP]]]
"""Host name and port to the addresses to judge and connect to (`resolve`; tests give
their own answer, as a DNS server would)."""


async def resolve(host: str, port: int) -> list[IP]:
    """Every address `host` resolves to (an address literal is itself), in order, once."""
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: list[IP] = []
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if ip not in seen:
            seen.append(ip)
    return seen


@dataclass
class SandboxProxy:
    """One session's proxy: a Unix socket server, and the hosts it refused so far."""

    policy: DomainPolicy
    socket_path: Path
    blocked: list[str] = field(default_factory=list)
    resolver: Resolver = resolve
    _server: asyncio.Task[asyncio.AbstractServer] | None = None

    def start(self) -> None:
        """Listen on `socket_path` (owner-only, in the session's scratch folder) at once:
        connections wait in the backlog until the event loop serves them."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(self.socket_path))
        self.socket_path.chmod(0o600)
        sock.listen(64)
        serving = asyncio.start_unix_server(self._serve, sock=sock, limit=_HEAD_LIMIT)
        self._server = asyncio.get_running_loop().create_task(serving)

    def take_blocked(self) -> list[str]:
        """The requests refused since the last call (`host:port`, once each)."""
        out = list(dict.fromkeys(self.blocked))
        self.blocked.clear()
        return out

    async def close(self) -> None:
        """Stop listening (connections being relayed end with their peers)."""
        if self._server is not None:
            with contextlib.suppress(Exception):
                server = await self._server
                server.close()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        try:
            await self._relay(head, reader, writer)
        except (ConnectionError, OSError) as exc:
            log.debug("sandbox proxy: %s", exc)
        finally:
            writer.close()

    async def _relay(
        self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        target = _target(head)
        if target is None:
            await _answer(writer, 400, "Karyi's sandbox proxy takes CONNECT or http:// requests")
            return
        host, port, forward = target
        why = self.policy.refusal(host)
        if why is not None:
            self.blocked.append(f"{host}:{port}")
            await _answer(writer, 403, f"Karyi's sandbox proxy blocked {host}: {why}")
            return
        try:
            up_reader, up_writer = await self._connect(host, port)
        except _Refused as exc:
            self.blocked.append(f"{host}:{port}")
            await _answer(writer, 403, f"Karyi's sandbox proxy blocked {host}: {exc}")
            return
        except OSError as exc:
            await _answer(writer, 502, f"Karyi's sandbox proxy could not reach {host}: {exc}")
            return
        if forward is None:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
        else:
            up_writer.write(forward)
        await asyncio.gather(_pump(reader, up_writer), _pump(up_reader, writer))

    async def _connect(
        self, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Resolve once, judge every address, connect to the first judged one that
        answers (by address: nothing is resolved again between the check and the use)."""
        addresses = await self.resolver(host, port)
        if not addresses:
            raise OSError(f"{host} resolves to no address")
        if (why := self.policy.address_refusal(host, addresses)) is not None:
            raise _Refused(why)
        last: OSError | None = None
        for ip in addresses:
            try:
                return await asyncio.open_connection(str(ip), port)
            except OSError as exc:
                last = exc
        assert last is not None
        raise last


class _Refused(Exception):
    """A name the allowlist lets through whose address is refused."""


def _target(head: bytes) -> tuple[str, int, bytes | None] | None:
    """(host, port, the head to send upstream; None for CONNECT) of a request head."""
    line, _, rest = head.partition(b"\r\n")
    parts = line.decode("latin-1").split()
    if len(parts) != 3:
        return None
    method, uri, version = parts
    if method.upper() == "CONNECT":
        host, _, port = uri.rpartition(":")
        if not host or not port.isdigit():
            return None
        return host.strip("[]"), int(port), None
    url = urlsplit(uri)
    if url.scheme != "http" or not url.hostname:
        return None
    path = url.path or "/"
    if url.query:
        path += "?" + url.query
    first = f"{method} {path} {version}\r\n".encode("latin-1")
    return url.hostname, url.port or 80, first + rest


async def _answer(writer: asyncio.StreamWriter, status: int, message: str) -> None:
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
    body = (message + "\n").encode()
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(ConnectionError):
        await writer.drain()


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            if writer.can_write_eof():
                writer.write_eof()


def blocked_note(hosts: Iterable[str]) -> str:
    """What a command's result says about the requests the proxy refused."""
    names = ", ".join(hosts)
    return (
        f"network: Karyi's sandbox proxy blocked {names} (not allowed by "
        "shell.sandbox.allowedDomains / deniedDomains; docs/security.md#the-network-allowlist)"
    )
