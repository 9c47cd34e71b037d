"""The settings files: JSON with comments, and a broken file reported where it broke."""

from __future__ import annotations

from pathlib import Path

from karyi.settings import loads_jsonc
from tests.support.settings_files import load, write


def test_a_broken_file_is_reported_with_its_position(user_file: Path) -> None:
    write(user_file, '{"model": "openai:x",\n  "maxSteps": }')
    s = load(None, user_file)
    assert str(s.warnings[0]) == (
        f"{user_file}: (file): not valid JSON (Expecting value at line 2 column 15); "
        "the whole file was ignored"
    )


def test_comments_and_trailing_commas_are_accepted() -> None:
    text = '{\n // the model\n "model": "openai:x", /* inline */ "url": "http://a//b",\n}'
    assert loads_jsonc(text) == {"model": "openai:x", "url": "http://a//b"}
