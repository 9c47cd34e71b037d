"""The extension's import-cycle check (`make lint`): passes on the extension, names the
files of a cycle it is shown."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "client-vscode" / "scripts" / "check-cycles.mjs"

pytestmark = pytest.mark.skipif(
    not (ROOT / "client-vscode" / "node_modules" / "typescript").exists(),
    reason="the extension's node_modules are installed by `make test` (make lint) first",
)


def _check(src: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node") or "node"
    return subprocess.run([node, str(CHECK), str(src)], capture_output=True, text=True)


def test_the_extension_has_no_import_cycle() -> None:
    done = _check(ROOT / "client-vscode" / "src")
    assert done.returncode == 0, done.stderr
    assert "import cycles: none" in done.stdout


def test_a_cycle_of_type_imports_is_named_file_by_file(tmp_path: Path) -> None:
    (tmp_path / "a.ts").write_text("import { b } from './b';\nexport const a = b + 1;\n")
    (tmp_path / "b.ts").write_text("import type { C } from './c';\nexport const b: C = 1;\n")
    (tmp_path / "c.ts").write_text("import { a } from './a';\nexport type C = typeof a;\n")
    (tmp_path / "d.ts").write_text("import { a } from './a';\nexport const d = a;\n")
    done = _check(tmp_path)
    assert done.returncode == 1
    assert "import cycle among 3 files:" in done.stderr
    for name in ("a.ts", "b.ts", "c.ts"):
        assert name in done.stderr
    assert "d.ts" not in done.stderr


def test_a_cycle_through_a_tsx_component_is_found(tmp_path: Path) -> None:
    (tmp_path / "app.tsx").write_text(
        "import { s } from './store';\nexport const App = () => <div>{s}</div>;\n"
    )
    (tmp_path / "store.ts").write_text(
        "import { App } from './app';\nexport const s = String(App);\n"
    )
    done = _check(tmp_path)
    assert done.returncode == 1
    assert "app.tsx" in done.stderr and "store.ts" in done.stderr
