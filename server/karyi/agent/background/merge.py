"""Bringing a task's changes into the user's working tree: a three-way merge per file
(docs/parallel.md#stop-apply-keep-discard).

The base is the commit the task started from, "theirs" the task's branch, "ours" the
file in the working tree as it is now, whatever the user did meanwhile. A file the user
did not touch takes the task's version; one both changed is merged by `git merge-file`,
and where the two overlap both sides are kept between conflict markers. Nothing the user
wrote is lost: a file the task deleted but the user changed stays, and is reported.
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from karyi.agent.background.worktrees import Change, changes, git
from karyi.core.atomic import write_atomic


@dataclass
class ApplyResult:
    """What applying did, file by file (paths relative to the repository)."""

    merged: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    """Files written with conflict markers, or left as the user had them."""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, list[str]]:
        """The JSON form (CLI `--json`, LSP and gateway answers)."""
        return {"merged": self.merged, "conflicts": self.conflicts, "notes": self.notes}


def apply_changes(repo: Path, base: str, head: str) -> ApplyResult:
    """Merge the task's changes (`base`..`head`) into the working tree of `repo`."""
    result = ApplyResult()
    for change in changes(repo, base, head):
        _apply_one(repo, base, head, change, result)
    return result


def _blob(repo: Path, commit: str, path: str) -> bytes | None:
    proc = subprocess.run(
        ["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True, check=False
    )
    return proc.stdout if proc.returncode == 0 else None


@dataclass
class Merged:
    """What one file of the task becomes in the working tree by the three-way merge."""

    path: str
    mine: bytes | None
    """The file in the working tree now (None: it does not exist)."""
    text: bytes | None
    """What it becomes (None: deleted); `mine` again when the user's version stays."""
    clean: bool
    note: str | None = None


def merge_one(repo: Path, base: str, head: str, change: Change) -> Merged:
    """The three-way merge of one changed file (nothing is written)."""
    target = repo / change.path
    old = _blob(repo, base, change.path)
    new = _blob(repo, head, change.path)
    mine = target.read_bytes() if target.is_file() else None
    if mine in (old, new):
        return Merged(change.path, mine, new, True)
    if new is None:
        note = f"{change.path}: the task deleted it, you changed it: kept yours"
        return Merged(change.path, mine, mine, False, note)
    if mine is None:
        note = f"{change.path}: you deleted it, the task changed it: not restored"
        return Merged(change.path, mine, mine, False, note)
    merged, clean = _merge_texts(mine, old or b"", new, change.path)
    if merged is None:
        note = f"{change.path}: binary, changed on both sides: kept yours"
        return Merged(change.path, mine, mine, False, note)
    return Merged(change.path, mine, merged, clean)


def _apply_one(repo: Path, base: str, head: str, change: Change, result: ApplyResult) -> None:
    merged = merge_one(repo, base, head, change)
    if merged.note is not None:
        result.conflicts.append(change.path)
        result.notes.append(merged.note)
        return
    write_file(repo / change.path, merged.text)
    (result.merged if merged.clean else result.conflicts).append(change.path)


def _merge_texts(mine: bytes, base: bytes, theirs: bytes, name: str) -> tuple[bytes | None, bool]:
    """(merged text, whether it merged cleanly); (None, False) for binary files."""
    if any(b"\0" in t for t in (mine, base, theirs)):
        return None, False
    with tempfile.TemporaryDirectory(prefix="karyi-merge-") as tmp:
        paths = []
        for label, data in (("mine", mine), ("base", base), ("task", theirs)):
            p = Path(tmp) / label
            p.write_bytes(data)
            paths.append(str(p))
        proc = subprocess.run(
            [
                "git",
                "merge-file",
                "-p",
                "-L",
                f"{name} (yours)",
                "-L",
                "base",
                "-L",
                "task",
                *paths,
            ],
            capture_output=True,
            check=False,
        )
    if proc.returncode < 0 or proc.returncode > 127:
        raise RuntimeError(f"git merge-file failed on {name}: {proc.stderr.decode()}")
    return proc.stdout, proc.returncode == 0


def write_file(target: Path, data: bytes | None) -> None:
    """Write (or, for None, delete) a file of the working tree, atomically."""
    if data is None:
        target.unlink(missing_ok=True)
        return
    write_atomic(target, data, display=str(target), make_parents=True)


def keep_branch(repo: Path, branch: str) -> str:
    """The branch's head (it stays as it is; the task's worktree may go)."""
    return git(repo, "rev-parse", f"refs/heads/{branch}").strip()
