"""Fixtures for the shell tests: a real ShellManager over a real workspace."""

from __future__ import annotations

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
