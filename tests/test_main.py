"""The `karyi` launcher: help, version, and no command at all."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.support.karyi_process import KARYI, run


def test_help_and_version() -> None:
    assert "exec" in run(["--help"]).stdout
    assert run(["--version"]).stdout.strip() == "karyi 0.1.0"
    assert run([]).returncode == 2


def test_a_reader_that_goes_away_ends_karyi_quietly(tmp_path: Path) -> None:
    reply = "<tools>" + '<read><file src="a.txt"/></read>' * 200 + "</tools>"
    (tmp_path / "a.txt").write_text("x\n" * 2000)
    proc = subprocess.Popen(
        [*KARYI, "exec", "--workspace", str(tmp_path), "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "KARYI_CONFIG_DIR": str(tmp_path / "config")},
    )
    assert proc.stdout is not None and proc.stdin is not None
    proc.stdout.close()  # as `| head -1` does once it has its line
    _, err = proc.communicate(reply.encode(), timeout=60)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err
    assert proc.returncode == 1
