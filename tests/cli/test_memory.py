"""`karyi run /memory` prints the memory files without asking a model."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.karyi_process import run


def test_run_memory_prints_the_files(ws_root: Path) -> None:
    (ws_root / "KARYI.md").write_text("- deploy with make deploy\n")
    conf = os.environ["KARYI_CONFIG_DIR"]
    proc = run(
        ["run", "--workspace", str(ws_root), "/memory"],
        env={
            "KARYI_CONFIG_DIR": conf,
            "KARYI_MODEL": "openai:none",
            "KARYI_BASE_URL": "http://127.0.0.1:9",
        },
    )
    assert proc.returncode == 0, proc.stderr
    root = ws_root.resolve()
    assert proc.stdout == (
        f"## {Path(conf) / 'KARYI.md'} (user)\n(not written yet)\n\n"
        f"## {root / 'KARYI.md'} (workspace)\n- deploy with make deploy\n"
    )
