"""The extension's structure check (`make lint`, client-vscode/scripts/check-structure.mjs):
its own tests (small trees that fail at 61 lines, on an import back up, on a cycle) pass,
and so does the extension's src/."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "client-vscode" / "scripts"

pytestmark = pytest.mark.skipif(
    not (ROOT / "client-vscode" / "node_modules" / "typescript").exists(),
    reason="the extension's node_modules are installed by `make test` (make lint) first",
)


def _node(*args: str) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node") or "node"
    return subprocess.run([node, *args], capture_output=True, text=True, cwd=ROOT)


def test_the_extension_is_within_its_limits_and_layers() -> None:
    done = _node(str(SCRIPTS / "check-structure.mjs"))
    assert done.returncode == 0, done.stderr
    assert "no import cycle" in done.stdout


def test_the_check_fails_where_its_tests_say() -> None:
    done = _node("--test", str(SCRIPTS / "check-structure.test.mjs"))
    assert done.returncode == 0, done.stdout + done.stderr
