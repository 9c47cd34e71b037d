"""Fixtures of the tool tests: a tree to search, a context with a shell and a vault."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from karyi.secrets.store import SecretStore
from karyi.secrets.vault import Vault
from karyi.shell.manager import ShellManager
from karyi.tools.context import ToolContext
from karyi.workspace.workspace import Workspace
from tests.support.command_calls import SECRET, settings


@pytest.fixture
def tree(ws_root: Path) -> Path:
    """`ws_root` plus files to search: hidden, vendored, git-ignored, binary."""
    (ws_root / "src" / "util.py").write_text("# TODO: tidy\ndef helper():\n    return 1\n")
    (ws_root / "src" / "app.ts").write_text("// todo later\nexport const x = 1;\n")
    (ws_root / ".hidden.py").write_text("TODO hidden\n")
    (ws_root / "node_modules" / "pkg").mkdir(parents=True)
    (ws_root / "node_modules" / "pkg" / "i.js").write_text("TODO vendored\n")
    (ws_root / "build" / "gen.py").write_text("TODO generated\n")  # git-ignored
    (ws_root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(50))
    return ws_root


@pytest.fixture
async def sctx(ws_root: Path, tmp_path: Path) -> AsyncIterator[ToolContext]:
    """A context with a shell manager and a vault holding TOKEN."""
    workspace = Workspace.open(ws_root)
    vault = Vault(SecretStore(tmp_path / "config"))
    vault.remember("TOKEN", SECRET)
    s = settings()
    shell = ShellManager(workspace, s, vault)
    yield ToolContext(workspace=workspace, settings=s, session_id="t", shell=shell, secrets=vault)
    await shell.close()
