"""Put the Karyi server into the extension: its wheel, every dependency wheel, and uv.

`make vsix` runs this before packing. The extension sets up its own environment from
`client-vscode/server/` on first start, offline (docs/install.md). Dependency wheels are
downloaded once per target with pip (from the registry pip is configured for) into
`build/wheels/<target>-<key>/`, where the key hashes the declared dependencies, the
Python versions and uv's version: a later build with the same dependencies is offline.

pip downloads wheels for a foreign platform tag, but evaluates environment markers
(`; sys_platform == 'linux'`) on the machine it runs on: build each target on its own
operating system (linux-x64 and linux-arm64 on Linux, darwin-* on macOS, win32-x64 on
Windows).

Usage: bundle_server.py --target linux-x64 --wheel dist/karyi_agent-X-py3-none-any.whl
                        --cache build/wheels --out client-vscode/server
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Every CPython the bundled wheels serve; the extension refuses others with a message.
PYTHONS = ("3.11", "3.12", "3.13", "3.14")
UV = "uv==0.13.9"

# VS Code target → pip platform tags (newest first) and the name of uv's executable.
TARGETS: dict[str, tuple[list[str], str]] = {
    "linux-x64": (
        ["manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64", "linux_x86_64"],
        "uv",
    ),
    "linux-arm64": (
        ["manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64"],
        "uv",
    ),
    "darwin-arm64": (["macosx_14_0_arm64", "macosx_11_0_arm64", "macosx_11_0_universal2"], "uv"),
    "darwin-x64": (["macosx_13_0_x86_64", "macosx_10_12_x86_64", "macosx_10_9_universal2"], "uv"),
    "win32-x64": (["win_amd64"], "uv.exe"),
}


def dependencies() -> list[str]:
    """The runtime dependencies pyproject.toml declares (the `dev` extra stays out)."""
    with (REPO / "pyproject.toml").open("rb") as f:
        deps: list[str] = tomllib.load(f)["project"]["dependencies"]
    return deps


def cache_key(target: str, deps: list[str]) -> str:
    """What decides the set of wheels: a change to any of it downloads again."""
    blob = json.dumps({"target": target, "deps": deps, "pythons": PYTHONS, "uv": UV})
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def pip_download(dest: Path, platforms: list[str], args: list[str]) -> None:
    """`pip download` of binary wheels for the target platform; raises on failure."""
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:"]
    cmd += ["--dest", str(dest)]
    for p in platforms:
        cmd += ["--platform", p]
    subprocess.run(cmd + args, check=True)


def download(target: str, deps: list[str], cache: Path) -> Path:
    """The cached wheels of `target`, downloaded first when missing."""
    folder = cache / f"{target}-{cache_key(target, deps)}"
    if (folder / ".complete").exists():
        print(f"bundle: dependency wheels from {folder} (cached)")
        return folder
    platforms, _ = TARGETS[target]
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    wheels = partial / "wheels"
    reqs = partial / "requirements.txt"
    wheels.mkdir(parents=True)
    reqs.write_text("\n".join(deps) + "\n")
    print(f"bundle: downloading dependency wheels for {target} into {folder}")
    for version in PYTHONS:
        abis = ["--abi", "cp" + version.replace(".", ""), "--abi", "abi3", "--abi", "none"]
        interpreter = ["--python-version", version, "--implementation", "cp", *abis]
        pip_download(wheels, [*platforms, "any"], [*interpreter, "-r", str(reqs)])
    tools = partial / "tools"
    pip_download(tools, platforms, ["--no-deps", UV])
    (partial / ".complete").touch()
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    for old in cache.glob(f"{target}-*"):
        if old != folder:  # wheels of dependencies declared before
            shutil.rmtree(old, ignore_errors=True)
    return folder


def extract_uv(tools: Path, exe: str, bin_dir: Path) -> str:
    """Unpack uv's executable from its wheel; returns uv's version."""
    wheel = next(tools.glob("uv-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        member = next(n for n in z.namelist() if n.endswith(f".data/scripts/{exe}"))
        bin_dir.mkdir(parents=True, exist_ok=True)
        target = bin_dir / exe
        target.write_bytes(z.read(member))
    target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return wheel.name.split("-")[1]


def bundle(target: str, wheel: Path, cache: Path, out: Path) -> None:
    """Fill `out` with the wheels, uv's executable and a manifest."""
    if target not in TARGETS:
        raise SystemExit(f"bundle: unknown target {target!r}; one of {', '.join(TARGETS)}")
    if not wheel.is_file():
        raise SystemExit(f"bundle: {wheel} does not exist (run `make dist`)")
    cached = download(target, dependencies(), cache)
    shutil.rmtree(out, ignore_errors=True)
    wheels = out / "wheels"
    shutil.copytree(cached / "wheels", wheels)
    shutil.copy2(wheel, wheels / wheel.name)
    uv_version = extract_uv(cached / "tools", TARGETS[target][1], out / "bin")
    manifest = {
        "target": target,
        "pythons": list(PYTHONS),
        "package": "karyi-agent",
        "wheel": wheel.name,
        "uv": uv_version,
        "wheels": sorted(p.name for p in wheels.iterdir()),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    count = len(manifest["wheels"])
    print(f"bundle: {count} wheels and uv {uv_version} in {out} ({size >> 20} MB)")


def main() -> int:
    """Command line entry: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="linux-x64", help=", ".join(TARGETS))
    parser.add_argument("--wheel", type=Path, required=True)
    parser.add_argument("--cache", type=Path, default=REPO / "build" / "wheels")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    os.environ.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    try:
        bundle(args.target, args.wheel, args.cache, args.out)
    except subprocess.CalledProcessError as err:
        print(f"bundle: {' '.join(err.cmd[:4])} … failed ({err.returncode})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
