"""Which network addresses `web_fetch` and the sandbox proxy (shell/netproxy.py) may reach.

Cloud metadata endpoints and link-local addresses are refused always: a model that can
be talked into fetching `http://169.254.169.254/` can hand out the machine's cloud
credentials. Private ranges (loopback, RFC 1918, unique local, carrier-grade NAT) are
refused unless settings `web.allowPrivate` is true. The check is made on every address a
name resolves to, at connection time (see `fetch.GuardedBackend`), so a name that
resolves to a public address when checked and to a private one when used (DNS
rebinding) is caught too. IPv4 addresses embedded in IPv6 (mapped, NAT64) are checked
as the IPv4 address they carry.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

IP = ipaddress.IPv4Address | ipaddress.IPv6Address

METADATA_HOSTS = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "metadata.azure.com",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.tencentyun.com",
        "metadata.platformequinix.com",
    }
)
"""Names of cloud metadata services, refused before any lookup."""

METADATA_IPS = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
        "169.254.170.2",  # AWS ECS task credentials
        "fd00:ec2::254",  # AWS over IPv6
        "100.100.100.200",  # Alibaba Cloud
        "168.63.129.16",  # Azure wire server
        "192.0.0.192",  # Oracle Cloud (classic)
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_CGNAT = ipaddress.ip_network("100.64.0.0/10")


@dataclass(frozen=True)
class Verdict:
    """Whether an address may be reached, and in words why not."""

    allowed: bool
    reason: str = ""
    """What the address is, as a noun phrase: "a link-local address (always refused)"."""

    def about(self, host: str, ip: IP) -> str:
        """The refusal as a sentence about `host` (a name or the address itself)."""
        try:
            literal = ipaddress.ip_address(host.strip("[]")) == ip
        except ValueError:
            literal = False
        if literal:
            return f"{host.strip('[]')} is {self.reason}"
        return f"{host} resolves to {ip}, {self.reason}"


def embedded_v4(ip: IP) -> IP:
    """The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address, else `ip`."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip in _NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


_WEB_PRIVATE = (
    "a private or loopback address; set web.allowPrivate to true in your user "
    "settings to fetch from your own network"
)


def judge(ip: IP, *, allow_private: bool, private_refused: str = _WEB_PRIVATE) -> Verdict:
    """The verdict for one resolved address (`private_refused`: the reason given for a
    private address when `allow_private` is false)."""
    ip = embedded_v4(ip)
    if ip in METADATA_IPS:
        return Verdict(False, "a cloud metadata address (always refused)")
    if ip.is_link_local:
        return Verdict(False, "a link-local address (always refused)")
    private = ip.is_loopback or (ip.is_private and not ip.is_unspecified) or ip in _CGNAT
    if not private and (ip.is_unspecified or ip.is_multicast or ip.is_reserved):
        return Verdict(False, "not a unicast address that can be fetched")
    if private and not allow_private:
        return Verdict(False, private_refused)
    if not private and not ip.is_global:
        return Verdict(False, "not a public address")
    return Verdict(True)


def judge_host(host: str) -> Verdict:
    """Refuse a metadata service by name, before any lookup."""
    name = host.lower().rstrip(".")
    if name in METADATA_HOSTS:
        return Verdict(False, "a cloud metadata service (always refused)")
    return Verdict(True)
