"""Settings `mcpServers`: one entry per server, checked one by one.

The format is the one VS Code, Claude and Gemini CLI use:

    "mcpServers": {
      "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
                "env": {"TOKEN": "$KARYI{FILES_TOKEN}"}, "cwd": "tools"},
      "docs": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer $KARYI{T}"}},
      "old": {"url": "https://example.com/sse", "type": "sse"}
    }

`type` is `stdio` (implied by `command`), `http` (implied by `url`, or Gemini's
`httpUrl`) or `sse`. Per server: `trust` (its tools run without asking), `includeTools`
and `excludeTools` (names on the server), `timeout` (milliseconds per call, Gemini's
unit, default 10 minutes), `connectTimeout` (milliseconds to start and list tools,
default 30 s), `disabled`. In `env`, `args`, `url` and `headers`, `$KARYI{NAME}` is a
secure variable and `${NAME}` (or `${env:NAME}`) an environment variable, so no secret
needs to be written into a settings file. A bad entry is reported for that server only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from karyi.secrets.substitute import UnknownVariable, substitute

KNOWN = {
    "type",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "httpUrl",
    "headers",
    "trust",
    "includeTools",
    "excludeTools",
    "timeout",
    "connectTimeout",
    "disabled",
    "description",
}
_ENV_REF = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")
DEFAULT_TIMEOUT = 600.0
DEFAULT_CONNECT_TIMEOUT = 30.0


class ConfigError(ValueError):
    """A server entry that cannot be used; the message names the key."""


@dataclass(frozen=True)
class ServerConfig:
    """One usable server entry, variables substituted."""

    name: str
    transport: str  # stdio | http | sse
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    trust: bool = False
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    ignored: tuple[str, ...] = ()

    def wants(self, tool: str) -> bool:
        """Whether `includeTools`/`excludeTools` let `tool` through."""
        if tool in self.exclude:
            return False
        return self.include is None or tool in self.include

    def where(self) -> str:
        """The command line or the URL, for status lines."""
        if self.transport == "stdio":
            return " ".join([self.command, *self.args])
        return f"{self.url} ({self.transport})"


def _strings(entry: Mapping[str, Any], key: str, kind: type) -> Any:
    value = entry.get(key)
    if value is None:
        return None
    if kind is list and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise ConfigError(f"{key}: expected an array of strings")
    if kind is dict and not (
        isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    ):
        raise ConfigError(f"{key}: expected an object of strings")
    if kind is str and not isinstance(value, str):
        raise ConfigError(f"{key}: expected a string")
    return value


def _millis(entry: Mapping[str, Any], key: str, default: float) -> float:
    value = entry.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"{key}: expected a positive number of milliseconds")
    return float(value) / 1000


class _Expander:
    """`${VAR}` from the environment, `$KARYI{NAME}` from the vault."""

    def __init__(self, lookup: Callable[[str], str | None], env: Mapping[str, str]) -> None:
        self.lookup = lookup
        self.env = env

    def __call__(self, key: str, value: Any) -> Any:
        def env_var(m: re.Match[str]) -> str:
            if m[1] not in self.env:
                raise ConfigError(f"{key}: ${{{m[1]}}} is not set in the environment")
            return self.env[m[1]]

        expanded = _deep(value, lambda s: _ENV_REF.sub(env_var, s))
        try:
            return substitute(expanded, self.lookup)
        except UnknownVariable as exc:
            names = ", ".join(exc.names)
            raise ConfigError(
                f"{key}: secure variable {names} is not set; store it with `karyi var set "
                f"{exc.names[0]}`"
            ) from None


def _deep(value: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_deep(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _deep(v, fn) for k, v in value.items()}
    return value


def _transport(entry: Mapping[str, Any]) -> str:
    kind = entry.get("type")
    has_url = bool(entry.get("url") or entry.get("httpUrl"))
    if kind is None:
        if entry.get("command") and has_url:
            raise ConfigError("give either command (stdio) or url (http, sse), not both")
        if entry.get("command"):
            return "stdio"
        if has_url:
            return "http"
        raise ConfigError("expected command (a stdio server) or url (an http or sse server)")
    if kind == "streamable-http":
        kind = "http"
    if kind not in ("stdio", "http", "sse"):
        raise ConfigError(f"type: expected one of 'stdio', 'http', 'sse', got {kind!r}")
    if kind == "stdio" and not entry.get("command"):
        raise ConfigError("type stdio needs command")
    if kind != "stdio" and not has_url:
        raise ConfigError(f"type {kind} needs url")
    return str(kind)


def parse_server(
    name: str,
    entry: Any,
    *,
    root: Path,
    lookup: Callable[[str], str | None],
    env: Mapping[str, str] | None = None,
) -> ServerConfig | None:
    """The config of server `name`, None when disabled (raises ConfigError)."""
    if not isinstance(entry, Mapping):
        raise ConfigError(f"expected an object, got {type(entry).__name__}")
    if entry.get("disabled") is True:
        return None
    expand = _Expander(lookup, os.environ if env is None else env)
    transport = _transport(entry)
    cwd = _strings(entry, "cwd", str)
    include = _strings(entry, "includeTools", list)
    return ServerConfig(
        name=name,
        transport=transport,
        command=expand("command", _strings(entry, "command", str) or ""),
        args=tuple(expand("args", _strings(entry, "args", list) or [])),
        env=expand("env", _strings(entry, "env", dict) or {}),
        cwd=(root / os.path.expanduser(cwd)).resolve() if cwd else None,
        url=expand("url", _strings(entry, "url", str) or _strings(entry, "httpUrl", str) or ""),
        headers=expand("headers", _strings(entry, "headers", dict) or {}),
        trust=entry.get("trust") is True,
        include=tuple(include) if include is not None else None,
        exclude=tuple(_strings(entry, "excludeTools", list) or ()),
        timeout=_millis(entry, "timeout", DEFAULT_TIMEOUT),
        connect_timeout=_millis(entry, "connectTimeout", DEFAULT_CONNECT_TIMEOUT),
        ignored=tuple(sorted(set(entry) - KNOWN)),
    )
