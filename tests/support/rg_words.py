"""`rg -w NAME` as a user types it: the baseline the navigation tools are measured
against (tests/tools/test_navigation*.py, benches/bench_nav.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from karyi.workspace.ripgrep import rg_binary

Place = tuple[str, int, int]


def rg_words(root: Path, name: str, where: str = ".") -> tuple[set[Place], int]:
    """The places `rg -w name where` reports under `root` (path relative to `root`,
    line, column) and the size of its output (what a model would read)."""
    out = subprocess.run(
        [rg_binary(), "--vimgrep", "-w", name, where],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    hits = set()
    for line in out.splitlines():
        path, row, column, _text = line.split(":", 3)
        hits.add((path.removeprefix("./"), int(row), int(column)))
    return hits, len(out)
