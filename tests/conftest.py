"""Shared fixtures: a real workspace on disk, a tool context over it, a fake model server."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from karyi.settings import Settings
from karyi.tools.context import ToolContext
from karyi.workspace.workspace import Workspace
from tests.support.fixtures import fake_llm  # noqa: F401  (re-exported fixture)
from tests.support.procs import MARK_VAR


@pytest.fixture(autouse=True)
def _isolated_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Tests never read or write the real user's Karyi settings, memory or approvals,
    nor the machine's managed settings."""
    conf = tmp_path_factory.mktemp("karyi-config")
    monkeypatch.setenv("KARYI_CONFIG_DIR", str(conf))
    monkeypatch.setenv("KARYI_MANAGED_SETTINGS", str(conf / "managed-settings.json"))
    return conf


@pytest.fixture
def ws_root(tmp_path: Path) -> Path:
    """A small project: a few files, a subdirectory, a .gitignore."""
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / "README.md").write_text("# Demo\n\nHello.\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("generated\n")
    (root / "debug.log").write_text("noise\n")
    return root


@pytest.fixture
def ctx(ws_root: Path) -> ToolContext:
    """A tool context over `ws_root` with default settings."""
    return ToolContext(workspace=Workspace.open(ws_root), settings=Settings())


@pytest.fixture(autouse=True)
def mark(monkeypatch: pytest.MonkeyPatch) -> str:
    """A value in every process this test starts (see `tests.support.procs.marked`)."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(MARK_VAR, value)
    return value
