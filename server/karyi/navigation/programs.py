"""Finding a language server's program."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def find_program(name: str) -> str | None:
    """`name` on PATH, or next to this Python (a venv's server when PATH lacks it)."""
    if os.sep in name:
        return name if os.access(name, os.X_OK) else None
    found = shutil.which(name)
    if found:
        return found
    beside = Path(sys.executable).parent / name
    return str(beside) if os.access(beside, os.X_OK) else None
