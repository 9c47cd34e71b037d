"""Running `karyi` as a user does: a real process, with no user settings and no terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

KARYI = [sys.executable, "-m", "karyi"]


def run(
    args: list[str],
    *,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """`karyi ARGS`, finished, with its output captured."""
    full_env = {**os.environ, "KARYI_CONFIG_DIR": "/nonexistent-karyi-config", **(env or {})}
    return subprocess.run(
        KARYI + args,
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        start_new_session=True,  # no controlling terminal, as in CI
        timeout=60,
    )
