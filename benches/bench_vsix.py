"""The one-download extension's costs (docs/install.md), each against a baseline.

- Size of the platform-specific .vsix `make vsix` builds (built first when missing) and of
  what it carries for the server (wheels and uv).
- First-start setup: what the extension does on first start, with the wheels and uv
  unpacked from that .vsix: `uv venv` + `uv pip install --offline --no-index` +
  `python -m karyi --version`; baseline: a plain `python -m venv` + `pip install
  --no-index` of the same wheels + the same check. Same Python, same disk, same run.
  Target: setup under 15 s on this 2-core machine, and faster than plain pip.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXT = REPO / "client-vscode"
RUNS = 3
BASELINE_RUNS = 2
SMOKE: dict[str, object] = {"RUNS": 1, "BASELINE_RUNS": 1}
"""Fewer runs for `benches/run.py --smoke` (part of `make test`)."""


def vsix() -> Path:
    """The linux-x64 .vsix of this checkout, built with `make vsix` when missing."""
    version = json.loads((EXT / "package.json").read_text())["version"]
    path = EXT / f"karyi-linux-x64-{version}.vsix"
    if not path.exists():
        subprocess.run(["make", "-C", str(REPO), "vsix"], check=True, stdout=subprocess.DEVNULL)
    return path


def base_python() -> str:
    """The real interpreter behind this venv, as the extension would find on PATH."""
    v = sys.version_info
    return str(Path(sys.base_prefix) / "bin" / f"python{v.major}.{v.minor}")


def timed(steps: list[list[str]], env: dict[str, str]) -> float:
    """Seconds to run the commands one after the other (each must succeed)."""
    began = time.perf_counter()
    for cmd in steps:
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


def with_uv(server: Path, env_dir: Path, wheel: str) -> list[list[str]]:
    """The commands of client-vscode/src/bundled/environment.ts `createEnv`."""
    uv, wheels, python = str(server / "bin" / "uv"), server / "wheels", env_dir / "bin" / "python"
    offline = ["--quiet", "--offline", "--no-index", "--find-links", str(wheels)]
    return [
        [uv, "venv", "--quiet", "--python", base_python(), str(env_dir)],
        [uv, "pip", "install", *offline, "--python", str(python), str(wheels / wheel)],
        [str(python), "-m", "karyi", "--version"],
    ]


def with_pip(server: Path, env_dir: Path, wheel: str) -> list[list[str]]:
    """The plain way: the standard library's venv and pip, the same wheels."""
    wheels, python = server / "wheels", env_dir / "bin" / "python"
    offline = ["--quiet", "--disable-pip-version-check", "--no-index", "--find-links", str(wheels)]
    return [
        [base_python(), "-m", "venv", str(env_dir)],
        [str(python), "-m", "pip", "install", *offline, str(wheels / wheel)],
        [str(python), "-m", "karyi", "--version"],
    ]


Recipe = Callable[[Path, Path, str], list[list[str]]]


def setup_times(server: Path, wheel: str, make: Recipe, runs: int) -> list[float]:
    """Fresh environments made `runs` times, each in a new folder."""
    env = {**os.environ, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never", "UV_NO_CACHE": "1"}
    env.pop("VIRTUAL_ENV", None)
    out = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            out.append(timed(make(server, Path(tmp) / "env", wheel), env))
    return out


def main(report: Callable[[str], None] = print) -> dict[str, float]:
    """Run the benchmark; returns the figures."""
    package = vsix()
    size_mb = package.stat().st_size / 2**20
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(package) as z:
            members = [n for n in z.namelist() if n.startswith("extension/server/")]
            z.extractall(tmp, members)
        server = Path(tmp) / "extension" / "server"
        (server / "bin" / "uv").chmod(0o755)
        carried = sum(p.stat().st_size for p in server.rglob("*") if p.is_file()) / 2**20
        manifest = json.loads((server / "manifest.json").read_text())
        uv = statistics.median(setup_times(server, manifest["wheel"], with_uv, RUNS))
        pip = statistics.median(setup_times(server, manifest["wheel"], with_pip, BASELINE_RUNS))
    report(
        f"vsix size:          {size_mb:6.1f} MB ({package.name}; it carries {carried:.0f} MB"
        f" unpacked: {len(manifest['wheels'])} wheels and uv {manifest['uv']})"
    )
    report(
        f"first-start setup:  {uv:6.1f} s median of {RUNS} (plain venv + pip install of the same"
        f" wheels {pip:.1f} s, x{pip / uv:.1f} slower; target < 15 s)"
    )
    return {"vsix_mb": size_mb, "setup_s": uv, "pip_setup_s": pip}


if __name__ == "__main__":
    main()
