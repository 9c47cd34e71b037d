"""Run every benchmark in this folder; each compares with its baseline in the same run.

`python benches/run.py [--smoke] [bench_name ...]`: each bench runs in its own
process, so one that fails (or leaks) cannot stop or skew the next; a failure prints
its error, the run goes on, and the exit status is non-zero at the end. `--smoke` runs
every bench at tiny sizes (each bench's `SMOKE` table of constants): `make test` does,
so a bench cannot rot unseen.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def benches() -> list[str]:
    """The module names of every bench, in a stable order."""
    return [path.stem for path in sorted(HERE.glob("bench_*.py"))]


def run_one(name: str, smoke: bool) -> None:
    """Import one bench and run its `main()`, at its `SMOKE` sizes when asked."""
    sys.path.insert(0, str(HERE))
    module = importlib.import_module(name)
    if smoke:
        for constant, value in getattr(module, "SMOKE", {}).items():
            if not hasattr(module, constant):
                raise SystemExit(f"{name}.SMOKE names {constant}, which the bench lacks")
            setattr(module, constant, value)
    sys.argv = [str(HERE / f"{name}.py")]
    module.main()


def main(argv: list[str] | None = None) -> int:
    """Run the named benches (default: all), one process each; 1 if any failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, to check they run")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("names", nargs="*", help="bench modules (default: all)")
    args = parser.parse_args(argv)
    if args.one:
        run_one(args.one, args.smoke)
        return 0
    unknown = sorted(set(args.names) - set(benches()))
    if unknown:
        parser.error(f"no such bench: {', '.join(unknown)} (have: {', '.join(benches())})")
    failed: list[str] = []
    for name in args.names or benches():
        print(f"\n== {name} ==", flush=True)
        started = time.perf_counter()
        command = [sys.executable, str(Path(__file__).resolve()), "--one", name]
        done = subprocess.run([*command, *(["--smoke"] if args.smoke else [])], check=False)
        took = time.perf_counter() - started
        if done.returncode != 0:
            failed.append(name)
            print(f"!! {name} failed (exit {done.returncode}) after {took:.1f} s", flush=True)
    print(f"\n{len(failed)} of {len(args.names or benches())} benches failed", end="")
    print(f": {', '.join(failed)}" if failed else "", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
