"""Run every benchmark in this folder; each compares with its baseline in the same run."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    """Import and run each `bench_*.py`; figures go to stdout."""
    sys.path.insert(0, str(HERE))
    for path in sorted(HERE.glob("bench_*.py")):
        print(f"\n== {path.stem} ==")
        importlib.import_module(path.stem).main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
