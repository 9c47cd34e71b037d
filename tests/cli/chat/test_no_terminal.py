"""Without a terminal there is no chat: `karyi` alone prints the usage as it always has,
and `karyi chat` says it needs a terminal (exit 2), before loading anything."""

from __future__ import annotations

from pathlib import Path

from tests.support.karyi_process import run


def test_karyi_alone_without_a_terminal_prints_the_usage(tmp_path: Path) -> None:
    done = run([], cwd=tmp_path)
    assert done.returncode == 2
    assert "usage: karyi" in done.stdout and "chat" in done.stdout


def test_karyi_chat_without_a_terminal_says_so(tmp_path: Path) -> None:
    done = run(["chat"], cwd=tmp_path)
    assert done.returncode == 2
    assert "karyi chat needs a terminal" in done.stderr
