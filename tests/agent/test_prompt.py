"""The prompt's workspace facts: git facts stay cheap on a large repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from karyi.agent import prompt
from karyi.agent.prompt import workspace_facts
from karyi.workspace.workspace import Workspace


def _repo(root: Path) -> None:
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    (root / "new.txt").write_text("untracked\n")


def test_git_facts_count_changes(ws_root: Path) -> None:
    _repo(ws_root)
    facts = workspace_facts(Workspace.open(ws_root))
    assert facts["git"] == "- Git: branch main; 1 changed file(s)\n"


def test_a_large_index_names_the_branch_without_running_git_status(
    ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _repo(ws_root)
    tracked = len(subprocess.run(
        ["git", "-C", str(ws_root), "ls-files"], capture_output=True, text=True, check=True
    ).stdout.split())  # fmt: skip
    monkeypatch.setattr(prompt, "LARGE_INDEX", tracked - 1)
    facts = workspace_facts(Workspace.open(ws_root))
    assert facts["git"] == (
        f"- Git: branch main; changed files not counted ({tracked:,} tracked files; "
        "run `git status`)\n"
    )


def test_outside_a_repository(ws_root: Path) -> None:
    assert workspace_facts(Workspace.open(ws_root))["git"] == "- Git: not a git repository\n"
