"""`karyi settings`: the effective settings, their sources, and the managed file's pins."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

KARYI = [sys.executable, "-m", "karyi"]


def _settings(ws: Path, managed: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KARYI_MANAGED_SETTINGS": str(managed)}
    return subprocess.run(
        [*KARYI, "settings", "--workspace", str(ws), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_each_value_has_its_source_and_pins_are_marked(tmp_path: Path) -> None:
    (tmp_path / ".karyi").mkdir()
    (tmp_path / ".karyi" / "settings.json").write_text('{"maxSteps": 9}')
    managed = tmp_path / "managed.json"
    managed.write_text(json.dumps({"permissions": {"tools": {"write": "deny"}}}))
    done = _settings(tmp_path, managed)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("maxSteps = 9  (") and ".karyi" in line for line in lines)
    pinned = next(line for line in lines if line.startswith("permissions.tools.write"))
    assert str(managed) in pinned and "[pinned by your organisation]" in pinned
    as_json = json.loads(_settings(tmp_path, managed, "--json").stdout)
    assert as_json["permissions.tools.write"]["pinned"] is True
    assert as_json["dialect"] == {"value": "toolsxml", "source": "default", "pinned": False}


def test_a_managed_file_that_does_not_parse_stops_karyi(tmp_path: Path) -> None:
    managed = tmp_path / "managed.json"
    managed.write_text('{"permissions": {"tools": ')
    done = _settings(tmp_path, managed)
    assert done.returncode == 1 and done.stdout == ""
    assert str(managed) in done.stderr and "not valid JSON" in done.stderr
    assert "will not start" in done.stderr
