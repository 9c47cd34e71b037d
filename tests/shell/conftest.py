"""Fixtures for the shell tests: a real ShellManager over a real workspace."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from karyi.secrets.vault import Vault
from karyi.settings import DEFAULTS, Settings
from karyi.shell.manager import ShellManager
from karyi.workspace.workspace import Workspace


def shell_settings(**shell: Any) -> Settings:
    """Default settings with some `shell.*` keys changed."""
    values = copy.deepcopy(DEFAULTS)
    values["shell"].update(shell)
    return Settings(values)


# Commands that must finish get a generous inactivity window so a slow machine never
# turns them into `running`; tests that want `running` make a manager of their own.
@pytest.fixture
async def manager(ws_root: Path) -> AsyncIterator[ShellManager]:
    """A manager over `ws_root` whose commands have 30 s of patience."""
    m = ShellManager(Workspace.open(ws_root), shell_settings(inactivitySeconds=30))
    yield m
    await m.close()


@pytest.fixture
async def impatient(ws_root: Path) -> AsyncIterator[ShellManager]:
    """A manager whose terminal calls return `running` after 0.5 s of silence."""
    m = ShellManager(Workspace.open(ws_root), shell_settings(inactivitySeconds=0.5))
    yield m
    await m.close()


def make_manager(ws_root: Path, vault: Vault | None = None, **shell: Any) -> ShellManager:
    """A manager with the given `shell.*` settings."""
    return ShellManager(Workspace.open(ws_root), shell_settings(**shell), vault)


@pytest.fixture
async def web() -> AsyncIterator[tuple[int, list[str]]]:
    """An HTTP server on the loopback that answers with the Host it was asked for (the
    network allowlist's tests: its port, and the Hosts asked for so far)."""
    hosts: list[str] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode()
        host = next(
            line[5:].strip() for line in head.split("\r\n") if line.lower().startswith("host:")
        )
        hosts.append(host)
        writer.write(f"HTTP/1.0 200 OK\r\n\r\nhello {host}".encode())
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    async with server:
        yield server.sockets[0].getsockname()[1], hosts
