"""The change a review looks at, from git: what is uncommitted, a branch since its base,
or one commit (docs/review.md#what-is-reviewed).

Every kind is a diff between two commits: the uncommitted work is first made a commit
of the working tree (`snapshot`: tracked changes and untracked files that are not
ignored, the user's index left alone), so one parser serves all three. What a review
keeps is decided by the changed lines of each file's new side (`Change.near`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from karyi.agent.background.worktrees import GitError, git, repository_root, resolve, snapshot

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""git's empty tree: the base of a repository's first commit."""

MARGIN = 3
"""Lines around a changed line on which a finding still counts as on the change."""

OWN = (":(exclude,top).karyi/.gitignore",)
"""What Karyi itself writes that git would see: the `.gitignore` of its `.karyi/` folder
(workspace/localdir.py), never reviewed."""

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


class ChangeError(Exception):
    """The change cannot be read: not a git repository, or a ref that names nothing."""


@dataclass
class Change:
    """What is under review: the diff (with context, for the reviewers) and each file's
    changed lines on its new side."""

    label: str
    """How the change is named to the user: `uncommitted changes`, `abc123..def456`."""
    diff: str
    lines: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    """Each changed file (relative path) and its changed line ranges, first and last."""

    @property
    def empty(self) -> bool:
        """Nothing to review: no file has a changed line."""
        return not self.lines

    def near(self, path: str, line: int, end_line: int, margin: int = MARGIN) -> bool:
        """Whether lines `line..end_line` of `path` touch a changed line (± `margin`)."""
        return any(
            line <= last + margin and end_line >= first - margin
            for first, last in self.lines.get(path, [])
        )


def changed_lines(diff: str) -> dict[str, list[tuple[int, int]]]:
    """The new side's changed line ranges of each file of a `-U0` diff. A hunk that only
    removes lines counts as the line after the removal (where a finding about the
    removal would point)."""
    out: dict[str, list[tuple[int, int]]] = {}
    current: str | None = None
    for row in diff.splitlines():
        if row.startswith("+++ "):
            name = row[4:].split("\t")[0]
            current = None if name == "/dev/null" else name.removeprefix("b/")
        elif row.startswith("@@") and current is not None:
            found = _HUNK.match(row)
            if found is None:
                continue
            start, count = int(found.group(1)), int(found.group(2) or "1")
            first = max(1, start if count else start + 1)
            out.setdefault(current, []).append((first, max(first, start + count - 1)))
    return out


def collect(
    root: Path,
    *,
    base: str | None = None,
    commit: str | None = None,
    paths: Sequence[str] = (),
) -> Change:
    """The change to review in the repository holding `root`: one `commit`, the commits
    since `base` (from where the current branch left it), or else the uncommitted work.
    `paths` limit it to those files and folders. Raises ChangeError."""
    try:
        repo = repository_root(root)
        old, new, label = _ends(repo, base, commit)
        limit = ["--", *(_pathspec(repo, p) for p in paths), *OWN]
        common = ["-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "-M"]
        narrow = git(repo, *common, "-U0", old, new, *limit)
        wide = git(repo, *common, "-U5", old, new, *limit)
    except GitError as exc:
        raise ChangeError(str(exc)) from None
    return Change(label, wide, changed_lines(narrow))


def _ends(repo: Path, base: str | None, commit: str | None) -> tuple[str, str, str]:
    """The two commits the diff is between, and the change's name."""
    if commit is not None:
        new = _commit(repo, commit, "--commit")
        parent = git(repo, "rev-parse", "--verify", "--quiet", f"{new}^", check=False).strip()
        return parent or EMPTY_TREE, new, f"commit {new[:12]}"
    head = git(repo, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip()
    if base is not None:
        old = _commit(repo, base, "--base")
        if not head:
            raise ChangeError("--base: the repository has no commit yet")
        fork = git(repo, "merge-base", old, head, check=False).strip() or old
        return fork, head, f"{base}...HEAD"
    return head or EMPTY_TREE, snapshot(repo), "uncommitted changes"


def _commit(repo: Path, ref: str, option: str) -> str:
    try:
        return resolve(repo, ref)
    except GitError:
        raise ChangeError(f"{option}: no commit named {ref!r} in {repo}") from None


def _pathspec(repo: Path, path: str) -> str:
    """`path` (absolute, or relative to the current directory) relative to the repository."""
    return Path(os.path.relpath(Path(path).resolve(), repo.resolve())).as_posix()
