"""The git side of a background task: its starting commit, its worktree and branch, the
commit of what it did, its diff, and their removal (docs/parallel.md#tasks).

A task starts from the user's working tree as it is, uncommitted and untracked files
included: `snapshot` writes that state as a commit through a temporary index, so the
user's own index, stash and branches are never touched. The worktree lives inside the
repository's git directory (`.git/karyi/worktrees/ID`), where the user's `git add -A`
never sees it.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

IDENTITY = {
    "GIT_AUTHOR_NAME": "Karyi",
    "GIT_AUTHOR_EMAIL": "karyi@localhost",
    "GIT_COMMITTER_NAME": "Karyi",
    "GIT_COMMITTER_EMAIL": "karyi@localhost",
}


class GitError(Exception):
    """A git command failed: its arguments and what it said."""


def git(repo: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
    """Run `git -C repo args…` and return its stdout (GitError when it fails)."""
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **IDENTITY, **(env or {})},
        check=False,
    )
    if check and proc.returncode != 0:
        said = (proc.stderr or proc.stdout).strip()
        raise GitError(f"git {' '.join(args)}: {said}")
    return proc.stdout


def repository_root(path: Path) -> Path:
    """The top of the git work tree that holds `path` (GitError when there is none)."""
    try:
        return Path(git(path, "rev-parse", "--show-toplevel").strip())
    except GitError:
        raise GitError(f"{path} is not inside a git repository") from None


def tasks_dir(repo: Path) -> Path:
    """Where task worktrees live: `<git common dir>/karyi/worktrees`."""
    common = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    if not common.is_absolute():
        common = repo / common
    return common.resolve() / "karyi" / "worktrees"


def snapshot(repo: Path) -> str:
    """A commit of the working tree as it is now (tracked changes and untracked files
    that are not ignored), whose parent is HEAD; the user's index is left alone."""
    with tempfile.TemporaryDirectory(prefix="karyi-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        head = _head(repo)
        if head:
            git(repo, "read-tree", head, env=env)
        git(repo, "add", "-A", ".", env=env)
        tree = git(repo, "write-tree", env=env).strip()
    if head and tree == git(repo, "rev-parse", f"{head}^{{tree}}").strip():
        return head
    parents = ["-p", head] if head else []
    message = "karyi: the working tree when the task started"
    return git(repo, "commit-tree", tree, *parents, "-m", message).strip()


def _head(repo: Path) -> str | None:
    out = git(repo, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip()
    return out or None


def resolve(repo: Path, ref: str) -> str:
    """The commit a ref names (GitError with the ref when it names none)."""
    out = git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    if not out.strip():
        raise GitError(f"no commit named {ref!r} in {repo}")
    return out.strip()


def add_worktree(repo: Path, path: Path, branch: str, commit: str) -> None:
    """A new worktree at `path` on a new `branch` starting at `commit`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    git(repo, "worktree", "add", "--quiet", "-b", branch, str(path), commit)


def commit_all(worktree: Path, message: str) -> str:
    """Commit everything in the worktree but Karyi's own `.karyi/` state (nothing to
    commit: no new commit); the branch's head afterwards."""
    git(worktree, "add", "-A", "--", ".", ":(exclude).karyi")
    if _has_staged(worktree):
        git(worktree, "commit", "--quiet", "--no-verify", "-m", message)
    return git(worktree, "rev-parse", "HEAD").strip()


def _has_staged(worktree: Path) -> bool:
    proc = subprocess.run(
        ["git", "-C", str(worktree), "diff", "--cached", "--quiet"], capture_output=True
    )
    return proc.returncode == 1


@dataclass(frozen=True)
class Change:
    """One file a task changed: `A`dded, `M`odified, `D`eleted."""

    status: str
    path: str


def changes(repo: Path, base: str, head: str) -> list[Change]:
    """The files that differ between two commits (renames as delete plus add)."""
    out = git(repo, "diff", "--name-status", "--no-renames", "-z", base, head)
    parts = [p for p in out.split("\0") if p]
    return [Change(parts[i][0], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]


def diff(repo: Path, base: str, head: str) -> str:
    """The unified diff from `base` to `head` (binary files as git binary patches)."""
    return git(repo, "diff", "--binary", "--no-renames", base, head)


def remove_worktree(repo: Path, path: Path, branch: str | None) -> None:
    """Remove the worktree (and `branch`, when given); what is already gone is fine."""
    if path.exists():
        git(repo, "worktree", "remove", "--force", str(path), check=False)
    else:  # only then: a prune could take a worktree another process is adding
        git(repo, "worktree", "prune", check=False)
    if branch:
        git(repo, "branch", "-D", branch, check=False)


def branch_exists(repo: Path, branch: str) -> bool:
    """Whether `refs/heads/<branch>` exists."""
    ref = f"refs/heads/{branch}"
    return bool(git(repo, "rev-parse", "--verify", "--quiet", ref, check=False).strip())
