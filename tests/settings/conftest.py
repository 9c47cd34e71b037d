"""Fixtures of the settings tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    """Where the user settings file of a test is (not written yet)."""
    path = tmp_path / "config" / "settings.json"
    path.parent.mkdir()
    return path
