"""How the gateway is exposed: the address, the token, the request size limit.

The gateway binds 127.0.0.1 unless told otherwise; any other address needs a bearer
token (from `KARYI_GATEWAY_TOKEN`, else settings `gateway.token`), or it refuses to
start. Once a token is configured every request must carry it, on any address.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass

from karyi.settings import Settings

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
TOKEN_ENV = "KARYI_GATEWAY_TOKEN"
MIN_TOKEN = 16


class ConfigError(ValueError):
    """The gateway cannot start this way; the message says what to change."""


@dataclass(frozen=True)
class GatewayConfig:
    """What the app enforces on every request."""

    token: str | None = None
    max_request_bytes: int = 1024 * 1024

    @classmethod
    def from_settings(
        cls, settings: Settings, env: Mapping[str, str] | None = None
    ) -> GatewayConfig:
        """The token from the environment, else the settings; the limit from the settings."""
        env = os.environ if env is None else env
        token = env.get(TOKEN_ENV) or settings.gateway.token
        if token is not None and len(token) < MIN_TOKEN:
            raise ConfigError(
                f"{TOKEN_ENV}: the token must be at least {MIN_TOKEN} characters "
                f"(it has {len(token)}); e.g. `python3 -c 'import secrets; "
                "print(secrets.token_urlsafe(32))'`"
            )
        return cls(token=token or None, max_request_bytes=settings.gateway.max_request_bytes)


def is_loopback(host: str) -> bool:
    """True for `localhost` and addresses in 127.0.0.0/8 or ::1."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, config: GatewayConfig) -> None:
    """Refuse to listen beyond this machine without a token (ConfigError says how)."""
    if not is_loopback(host) and config.token is None:
        raise ConfigError(
            f"--host {host}: listening on an address other than loopback needs a bearer "
            f"token; set {TOKEN_ENV} (at least {MIN_TOKEN} characters) or settings "
            "gateway.token in your user settings, and give it to the clients as "
            "`Authorization: Bearer <token>`"
        )
