"""client-vscode/scripts/bundle_server.py: what `make vsix` puts into the extension.

The download itself needs the registry; these tests give the script a filled cache (as a
second build has) and check that it builds offline from it, and that the cache key
follows what decides the wheels (docs/install.md).
"""

from __future__ import annotations

import importlib.util
import json
import os
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "client-vscode" / "scripts" / "bundle_server.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bundle_server", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bundle_server = load()


def filled_cache(cache: Path, deps: list[str]) -> Path:
    """A cache folder as a finished download leaves it: wheels, uv's wheel, `.complete`."""
    folder = cache / f"linux-x64-{bundle_server.cache_key('linux-x64', deps)}"
    (folder / "wheels").mkdir(parents=True)
    (folder / "wheels" / "dep-1.0-py3-none-any.whl").write_bytes(b"dep")
    (folder / "tools").mkdir()
    uv_wheel = folder / "tools" / "uv-0.13.9-py3-none-manylinux_2_17_x86_64.whl"
    with zipfile.ZipFile(uv_wheel, "w") as z:
        z.writestr("uv-0.13.9.data/scripts/uv", "#!/bin/sh\necho uv\n")
        z.writestr("uv-0.13.9.data/scripts/uvx", "#!/bin/sh\n")
    (folder / ".complete").touch()
    return folder


def test_builds_offline_from_the_cache(tmp_path: Path) -> None:
    wheel = tmp_path / "karyi_agent-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"karyi")
    filled_cache(tmp_path / "cache", bundle_server.dependencies())
    out = tmp_path / "server"
    (out / "stale").mkdir(parents=True)
    bundle_server.bundle("linux-x64", wheel, tmp_path / "cache", out)
    assert sorted(p.name for p in out.iterdir()) == ["bin", "manifest.json", "wheels"]
    assert os.access(out / "bin" / "uv", os.X_OK)
    assert json.loads((out / "manifest.json").read_text()) == {
        "target": "linux-x64",
        "pythons": ["3.11", "3.12", "3.13", "3.14"],
        "package": "karyi-agent",
        "wheel": wheel.name,
        "uv": "0.13.9",
        "wheels": ["dep-1.0-py3-none-any.whl", wheel.name],
    }


def test_the_cache_key_follows_the_dependencies_and_the_target() -> None:
    deps = ["lxml>=5.2", "pygls>=2.0,<3"]
    key = bundle_server.cache_key("linux-x64", deps)
    assert key == bundle_server.cache_key("linux-x64", list(deps))
    assert key != bundle_server.cache_key("linux-x64", [*deps, "rich>=13.7"])
    assert key != bundle_server.cache_key("linux-arm64", deps)


def test_declares_the_runtime_dependencies_only() -> None:
    deps = bundle_server.dependencies()
    assert any(d.startswith("pygls") for d in deps)
    assert not any(d.startswith("pytest") for d in deps)


def test_bad_input_says_what_is_wrong_and_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "server"
    out.mkdir()
    (out / "keep").write_text("x")
    with pytest.raises(SystemExit, match="unknown target 'amiga-m68k'; one of linux-x64"):
        bundle_server.bundle("amiga-m68k", tmp_path / "k.whl", tmp_path / "cache", out)
    with pytest.raises(SystemExit, match=r"k\.whl does not exist \(run `make dist`\)"):
        bundle_server.bundle("linux-x64", tmp_path / "k.whl", tmp_path / "cache", out)
    assert (out / "keep").read_text() == "x"
