"""docs/architecture.md names every package and every built-in tool module that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text()
PACKAGE = ROOT / "server" / "karyi"


def _table_rows(heading: str) -> str:
    section = DOC.split(heading, 1)[1].split("\n## ", 1)[0]
    return "\n".join(line for line in section.splitlines() if line.startswith("|"))


def test_every_package_has_a_row_in_what_each_package_owns() -> None:
    rows = _table_rows("## What each package owns")
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    missing = [name for name in packages if f"| `{name}/` |" not in rows]
    assert missing == []


def test_every_builtin_tool_module_is_in_the_capability_table() -> None:
    rows = _table_rows("## What each package owns")
    builtin = PACKAGE / "tools" / "builtin"
    names = sorted(
        p.stem if p.is_file() else f"{p.name}/"
        for p in builtin.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()
    )
    helpers = re.findall(
        r"`(\w+\.py)`", DOC.split("Two helpers serve several features", 1)[1][:200]
    )
    missing = [n for n in names if f"`{n}" not in rows and f"{n}.py" not in helpers]
    assert missing == []
