"""The protocol fuzz tests as a soak: the same properties as `make test`, many more
examples (issue [hardening]).

`tests/protocol/test_fuzz.py` (any text, any chunking, odd schemas, every dialect) and
`tests/protocol/test_recovery.py` (a truncated or mutated call between two valid ones:
no exception, the valid ones still read) run with KARYI_FUZZ_SCALE times their example
counts (default 40, `--scale N`). Prints the examples' wall time and the outcome.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCALE = 40
"""Times the fuzz tests' example counts (`--scale`)."""
SMOKE: dict[str, object] = {"SCALE": 1, "TESTS": ["tests/protocol/test_recovery.py"]}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""
TESTS = ["tests/protocol/test_fuzz.py", "tests/protocol/test_recovery.py"]


def main(argv: list[str] | None = None) -> None:
    """Run the fuzz tests at `--scale` times their example counts."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=int, default=SCALE)
    args = parser.parse_args(argv if argv is not None else [])
    env = {**os.environ, "KARYI_FUZZ_SCALE": str(args.scale)}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    print(f"fuzz soak at {args.scale}x the examples: {summary} ({seconds:.1f} s)")
    if done.returncode != 0:
        print(done.stdout[-4000:])
        raise SystemExit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
