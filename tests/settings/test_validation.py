"""Precise warnings for unknown and invalid settings keys."""

from __future__ import annotations

from pathlib import Path

from tests.support.settings_files import load, write


def test_unknown_and_invalid_keys_are_warned_precisely(user_file: Path) -> None:
    write(
        user_file,
        {"modle": "x", "maxSteps": "ten", "dialect": "yaml", "shell": {"timeoutSeconds": -1}},
    )
    s = load(None, user_file)
    assert [str(w) for w in s.warnings] == [
        f"{user_file}: modle: unknown key, ignored (did you mean 'model'?)",
        f"{user_file}: maxSteps: expected integer: the most model calls one turn may make, "
        "got string 'ten'; ignored",
        f"{user_file}: dialect: expected one of 'toolsxml', 'agentxml', 'toolcall', 'native', "
        "got 'yaml'; ignored",
        f"{user_file}: shell: timeoutSeconds: -1 is less than or equal to the minimum of 0;"
        " ignored",
    ]
    assert s.max_steps == 50 and s.dialect == "toolsxml" and s.shell.timeout_seconds == 120


def test_model_must_name_a_provider(user_file: Path) -> None:
    write(user_file, {"model": "gpt-4"})
    s = load(None, user_file)
    assert "model" in str(s.warnings[0]) and "does not match" in str(s.warnings[0])


def test_web_settings_are_checked(user_file: Path) -> None:
    write(user_file, {"web": {"search": {"backend": "google"}}})
    s = load(None, user_file)
    assert s.web.search is None
    assert [str(w) for w in s.warnings] == [
        f"{user_file}: web: search.backend: expected one of 'searxng', 'bocha', got 'google'; "
        "ignored"
    ]
