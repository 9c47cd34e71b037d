"""Every benchmark runs at tiny sizes (`benches/run.py --smoke`), so none rots unseen.

Figures are not checked here (timing depends on the machine); what is checked is that
each bench runs to its end through the same runner `make bench` uses, and that the
runner goes on past a failing bench and reports it in its exit status.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "benches" / "run.py"
BENCHES = sorted(path.stem for path in (ROOT / "benches").glob("bench_*.py"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """`benches/run.py ARGS` from the repository root, output captured."""
    return subprocess.run(
        [sys.executable, str(RUNNER), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("name", BENCHES)
def test_bench_runs_at_tiny_sizes(name: str) -> None:
    done = run("--smoke", name)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"== {name} ==" in done.stdout
    assert "0 of 1 benches failed" in done.stdout


def test_every_bench_has_smoke_sizes() -> None:
    for name in BENCHES:
        text = (ROOT / "benches" / f"{name}.py").read_text()
        assert "\nSMOKE: dict[str, object] = " in text, f"{name} has no SMOKE sizes"


def test_a_failing_bench_is_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "run.py").write_text(RUNNER.read_text())
    (tmp_path / "bench_a.py").write_text("def main():\n    raise RuntimeError('broken')\n")
    (tmp_path / "bench_b.py").write_text("def main():\n    print('b ran')\n")
    done = subprocess.run(
        [sys.executable, str(tmp_path / "run.py")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert "RuntimeError: broken" in done.stderr
    assert "!! bench_a failed (exit 1)" in done.stdout
    assert "b ran" in done.stdout
    assert done.stdout.rstrip().endswith("1 of 2 benches failed: bench_a")


def test_an_unknown_bench_is_refused() -> None:
    done = run("bench_nonexistent")
    assert done.returncode == 2
    assert "no such bench: bench_nonexistent" in done.stderr


def test_no_bench_puts_the_tests_folder_on_the_path() -> None:
    """tests/ on sys.path stands in for packages named like its folders (tests/acp for the
    ACP SDK, tests/secrets for the standard library's, tests/packaging for `packaging`,
    which broke Ray in bench_parallel: its smoke sizes skip Ray, so only this shows it)."""
    for name in BENCHES:
        text = (ROOT / "benches" / f"{name}.py").read_text()
        assert '/ "tests")' not in text, f"{name} puts tests/ on sys.path: import tests.support"
