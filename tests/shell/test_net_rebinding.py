"""The sandbox proxy resolves a name once, judges every address and connects to the one
it judged: an allowed name whose DNS answer is a loopback or private address (DNS
rebinding) reaches nothing unless the allowlist names it exactly. The proxy is driven
through its own Unix socket, as the relay inside the sandbox does; the upstream is the
test's own server on the loopback, and the DNS answers are the test's own."""

from __future__ import annotations

import asyncio
import ipaddress
from pathlib import Path

from karyi.core.addresses import IP
from karyi.shell.netproxy import DomainPolicy, SandboxProxy, resolve

LOOPBACK = ipaddress.ip_address("127.0.0.1")


class Dns:
    """The test's DNS: every name answers `LOOPBACK`; the questions are counted."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> list[IP]:
        self.asked.append(host)
        return [LOOPBACK]


async def _get(proxy: SandboxProxy, host: str, port: int, *, connect: bool = False) -> str:
    reader, writer = await asyncio.open_unix_connection(str(proxy.socket_path))
    if connect:
        writer.write(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        await writer.drain()
        established = await reader.readuntil(b"\r\n\r\n")
        if b" 200 " not in established:
            answer = (established + await reader.read()).decode()
            writer.close()
            return answer
        writer.write(f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    else:
        writer.write(f"GET http://{host}:{port}/ HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    await writer.drain()
    answer = (await reader.read()).decode()
    writer.close()
    return answer


async def _proxy(tmp_path: Path, allowed: tuple[str, ...], dns: Dns | None = None) -> SandboxProxy:
    proxy = SandboxProxy(DomainPolicy(allowed), tmp_path / "p.sock")
    if dns is not None:
        proxy.resolver = dns
    proxy.start()
    return proxy


async def test_a_wildcard_name_that_resolves_to_the_loopback_is_refused(
    tmp_path: Path, web: tuple[int, list[str]]
) -> None:
    port, hosts = web
    dns = Dns()
    proxy = await _proxy(tmp_path, ("*.example.test",), dns)
    try:
        for connect in (False, True):
            answer = await _get(proxy, "api.example.test", port, connect=connect)
            assert "403" in answer and "api.example.test resolves to 127.0.0.1" in answer
            assert "lists exactly (not through a wildcard)" in answer
        assert hosts == [] and dns.asked == ["api.example.test"] * 2
        assert proxy.take_blocked() == [f"api.example.test:{port}"]
    finally:
        await proxy.close()


async def test_a_name_listed_exactly_reaches_the_address_resolved_once(
    tmp_path: Path, web: tuple[int, list[str]]
) -> None:
    port, hosts = web
    dns = Dns()  # mirror.corp.test has no DNS of its own: only the proxy's answer is used
    proxy = await _proxy(tmp_path, ("mirror.corp.test",), dns)
    try:
        assert f"hello mirror.corp.test:{port}" in await _get(proxy, "mirror.corp.test", port)
        answer = await _get(proxy, "mirror.corp.test", port, connect=True)
        assert f"hello mirror.corp.test:{port}" in answer
        assert dns.asked == ["mirror.corp.test"] * 2 and len(hosts) == 2
    finally:
        await proxy.close()


async def test_localhost_listed_exactly_still_works_and_metadata_never(
    tmp_path: Path, web: tuple[int, list[str]]
) -> None:
    port, hosts = web
    proxy = await _proxy(tmp_path, ("localhost", "169.254.169.254"))
    try:
        assert f"hello localhost:{port}" in await _get(proxy, "localhost", port)
        answer = await _get(proxy, "169.254.169.254", 80)
        assert "403" in answer and "cloud metadata" in answer and len(hosts) == 1
    finally:
        await proxy.close()


async def test_resolve_answers_every_address_once() -> None:
    assert await resolve("127.0.0.1", 80) == [LOOPBACK]
    assert await resolve("[::1]", 80) == [ipaddress.ip_address("::1")]
    assert all(ip.is_loopback for ip in await resolve("localhost", 80))


def test_the_rule_in_words() -> None:
    policy = DomainPolicy(("*.example.test", "localhost", "10.0.0.7", "pypi.org"))
    public = ipaddress.ip_address("151.101.0.223")
    private = ipaddress.ip_address("10.0.0.7")
    assert policy.address_refusal("files.example.test", [public]) is None
    assert policy.address_refusal("files.example.test", [public, private]) is not None
    assert policy.address_refusal("pypi.org", [private]) is None  # listed exactly
    assert policy.address_refusal("10.0.0.7", [private]) is None
    mapped = ipaddress.ip_address("::ffff:127.0.0.1")
    assert "a private or loopback" in (policy.address_refusal("a.example.test", [mapped]) or "")
