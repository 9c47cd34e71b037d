"""The prompt's workspace facts: the branch, read without running git in the repository
(git runs what a repository's config names, and that costs a stat per tracked file)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from karyi.agent.prompting.system_prompt import workspace_facts
from karyi.workspace.workspace import Workspace


def _repo(root: Path) -> None:
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)


def test_the_branch_is_named(ws_root: Path) -> None:
    _repo(ws_root)
    assert workspace_facts(Workspace.open(ws_root))["git"] == "- Git: branch main\n"


def test_no_program_the_repository_names_runs(ws_root: Path, tmp_path: Path) -> None:
    _repo(ws_root)
    ran = tmp_path / "ran"
    subprocess.run(
        ["git", "-C", str(ws_root), "config", "core.fsmonitor", f"touch {ran}"], check=True
    )
    assert workspace_facts(Workspace.open(ws_root))["git"] == "- Git: branch main\n"
    assert not ran.exists()


def test_a_detached_head_and_a_worktree(ws_root: Path, tmp_path: Path) -> None:
    _repo(ws_root)
    sha = subprocess.run(
        ["git", "-C", str(ws_root), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    subprocess.run(["git", "-C", str(ws_root), "checkout", "-q", "--detach"], check=True)
    facts = workspace_facts(Workspace.open(ws_root))["git"]
    assert facts == f"- Git: branch detached at {sha[:12]}\n"
    other = tmp_path / "wt"
    subprocess.run(
        ["git", "-C", str(ws_root), "worktree", "add", "-q", "-b", "side", str(other)], check=True
    )
    assert workspace_facts(Workspace.open(other))["git"] == "- Git: branch side\n"


@pytest.mark.parametrize("kind", ["none", "file"])
def test_outside_a_repository(ws_root: Path, kind: str) -> None:
    if kind == "file":
        (ws_root / ".git").write_text("not a pointer\n")
        assert workspace_facts(Workspace.open(ws_root))["git"] == ""
    else:
        assert workspace_facts(Workspace.open(ws_root))["git"] == "- Git: not a git repository\n"
