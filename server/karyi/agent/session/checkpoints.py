"""Checkpoints: snapshots of the workspace in a shadow git repository.

The shadow repository's git dir is Karyi's own (`.karyi/checkpoints.git`) and its work
tree is the workspace, so snapshots follow the user's `.gitignore` but never touch the
user's own `.git` (HEAD, index, history and hooks stay as they were). Restoring first
snapshots the current state, so a restore can itself be undone.

A workspace of several folders (docs/context.md#workspace-folders) has one shadow
repository per folder, all inside the root's `.karyi/`; a checkpoint is the root's
commit, and each other folder's commit names it (`karyi-root: <id>`), so restoring
one puts every folder back.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from karyi.workspace.localdir import local_dir

_ENV_DROP = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
)
EXCLUDES = ".git\n.karyi/\n"
TRAILER = "karyi-root: "


def _digest(folder: Path) -> str:
    return hashlib.sha256(str(folder).encode()).hexdigest()[:12]


class CheckpointError(Exception):
    """A snapshot or restore failed; the message says what git reported."""


@dataclass(frozen=True)
class Checkpoint:
    """One snapshot: its commit id, label and time (Unix seconds)."""

    id: str
    label: str
    time: float


class Checkpoints:
    """The shadow repository of one workspace."""

    def __init__(
        self, root: Path, git_dir: Path | None = None, *, folders: Sequence[Path] = ()
    ) -> None:
        self.root = root
        self._git_dir = git_dir
        self.others = [
            Checkpoints(f, self.git_dir.parent / f"checkpoints-{_digest(f)}.git") for f in folders
        ]

    @property
    def git_dir(self) -> Path:
        """The shadow repository (inside `.karyi/`, which stays out of the user's git)."""
        return self._git_dir or local_dir(self.root) / "checkpoints.git"

    def _git(self, *args: str, check: bool = True, bare: bool = False) -> str:
        env = {k: v for k, v in os.environ.items() if k not in _ENV_DROP}
        env.update(
            GIT_AUTHOR_NAME="Karyi",
            GIT_AUTHOR_EMAIL="karyi@localhost",
            GIT_COMMITTER_NAME="Karyi",
            GIT_COMMITTER_EMAIL="karyi@localhost",
            GIT_CONFIG_NOSYSTEM="1",
            GIT_TERMINAL_PROMPT="0",
        )
        where = [] if bare else [f"--git-dir={self.git_dir}", f"--work-tree={self.root}"]
        proc = subprocess.run(
            ["git", *where, *args],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if check and proc.returncode != 0:
            raise CheckpointError(
                f"git {args[0]} failed: {proc.stderr.strip() or proc.stdout.strip()}"
            )
        return proc.stdout

    def _ensure(self) -> None:
        if (self.git_dir / "HEAD").exists():
            return
        self.git_dir.parent.mkdir(parents=True, exist_ok=True)
        self._git("init", "--quiet", "--bare", str(self.git_dir), bare=True)
        for key, value in (
            ("core.bare", "false"),
            ("core.autocrlf", "false"),
            ("core.fileMode", "true"),
            ("gc.auto", "0"),
            ("commit.gpgSign", "false"),
            ("core.hooksPath", "/dev/null"),
        ):
            self._git("config", key, value)
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        (info / "exclude").write_text(EXCLUDES)

    def snapshot(self, label: str) -> Checkpoint:
        """Record the workspace as it is now (ignored files excepted), every folder."""
        checkpoint = self._commit(label)
        for other in self.others:
            other._commit(f"{label}\n\n{TRAILER}{checkpoint.id}")
        return checkpoint

    def _commit(self, message: str) -> Checkpoint:
        self._ensure()
        self._git("add", "--all", "--", ".")
        self._git("commit", "--quiet", "--allow-empty", "--no-verify", "-m", message)
        line = self._git("log", "-1", "--format=%H%x00%ct%x00%s").strip()
        sha, ts, subject = line.split("\x00", 2)
        return Checkpoint(sha, subject, float(ts))

    def list(self) -> list[Checkpoint]:
        """Every snapshot, newest first."""
        if not (self.git_dir / "HEAD").exists():
            return []
        out = self._git("log", "--format=%H%x00%ct%x00%s", check=False)
        items = []
        for line in out.splitlines():
            sha, ts, subject = line.split("\x00", 2)
            items.append(Checkpoint(sha, subject, float(ts)))
        return items

    def restore(self, checkpoint_id: str) -> Checkpoint:
        """Put the workspace back as it was at `checkpoint_id`.

        Files created since are removed, changed and deleted ones come back; ignored
        files are left alone. Returns the snapshot taken just before, to undo with.
        """
        commit = self._resolve(checkpoint_id)
        before = self.snapshot(f"before restoring {commit[:12]}")
        for repo, its_commit in self._commits_of(commit):
            repo._git("read-tree", "--reset", "-u", its_commit)
        return before

    def changes_since(self, checkpoint_id: str) -> Sequence[tuple[str, str]]:
        """What restoring `checkpoint_id` would do to each file that differs now: pairs
        of (`modified` | `created` | `deleted`, path relative to the root), every folder.
        Only the shadow index is touched: no snapshot is taken."""
        out: list[tuple[str, str]] = []
        for repo, commit in self._commits_of(self._resolve(checkpoint_id)):
            repo._git("add", "--all", "--", ".")
            listed = repo._git("diff", "--cached", "--name-status", "--no-renames", "-z", commit)
            fields = listed.split("\0")
            for status, path in zip(fields[0::2], fields[1::2], strict=False):
                effect = {"A": "deleted", "D": "created"}.get(status[:1], "modified")
                out.append((effect, os.path.relpath(repo.root / path, self.root)))
        return sorted(out, key=lambda change: change[1])

    def put_back(self, checkpoint_id: str, paths: Sequence[str]) -> None:
        """Make each of `paths` (relative to the root) as `checkpoint_id` holds it: its
        content back, or the file removed when the checkpoint has none."""
        for repo, commit in self._commits_of(self._resolve(checkpoint_id)):
            for rel in paths:
                where = (self.root / rel).resolve()
                if not where.is_relative_to(repo.root.resolve()):
                    continue
                inner = where.relative_to(repo.root.resolve()).as_posix()
                held = repo._git("ls-tree", "--name-only", commit, "--", inner, check=False)
                if held.strip():
                    repo._git("checkout", commit, "--", inner)
                elif where.is_file() or where.is_symlink():
                    where.unlink()

    def _resolve(self, checkpoint_id: str) -> str:
        """The one snapshot `checkpoint_id` (or a prefix of it) names."""
        known = {c.id for c in self.list()}
        matches = [c for c in known if c.startswith(checkpoint_id)] if checkpoint_id else []
        if len(matches) != 1:
            raise CheckpointError(
                f"no checkpoint {checkpoint_id!r}"
                if not matches
                else f"checkpoint id {checkpoint_id!r} is ambiguous"
            )
        return matches[0]

    def _commits_of(self, root_commit: str) -> Sequence[tuple[Checkpoints, str]]:
        """Each folder's repository with its commit of the root's snapshot."""
        pairs: list[tuple[Checkpoints, str]] = [(self, root_commit)]
        for other in self.others:
            found = other._git(
                "log", f"--grep={TRAILER}{root_commit}", "--format=%H", "-1", check=False
            )
            if found.strip():
                pairs.append((other, found.strip()))
        return pairs
