"""The `karyi` launcher: help, version, and no command at all."""

from __future__ import annotations

from tests.support.karyi_process import run


def test_help_and_version() -> None:
    assert "exec" in run(["--help"]).stdout
    assert run(["--version"]).stdout.strip() == "karyi 0.1.0"
    assert run([]).returncode == 2
