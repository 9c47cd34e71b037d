"""Which workspace files git ignores, so listings and searches skip build output.

Reads every `.gitignore` from the workspace root down to a path's directory with
pathspec's git-compatible matcher; a deeper file's rule wins, as in git. `.git/` is
always ignored.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pathspec import GitIgnoreSpec

ALWAYS_IGNORED = frozenset({".git"})


@lru_cache(maxsize=1024)
def _spec(gitignore: str, mtime_ns: int) -> GitIgnoreSpec | None:
    try:
        with open(gitignore, encoding="utf-8", errors="replace") as fh:
            return GitIgnoreSpec.from_lines(fh.read().splitlines())
    except OSError:
        return None


def _spec_for(directory: str) -> GitIgnoreSpec | None:
    path = os.path.join(directory, ".gitignore")
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        return None
    return _spec(path, mtime)


class GitIgnore:
    """Answers "does git ignore this path?" for paths under one root."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def ignored(self, path: Path, is_dir: bool | None = None) -> bool:
        """True when `path` (under the root) is ignored by some `.gitignore` on its way."""
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return False
        if any(part in ALWAYS_IGNORED for part in rel.parts):
            return True
        if is_dir is None:
            is_dir = path.is_dir()
        verdict = False
        directory = self.root
        parts = rel.parts
        for depth in range(len(parts)):
            spec = _spec_for(str(directory))
            if spec is not None:
                sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
                include = spec.check_file(sub).include
                if include is not None:
                    verdict = include
            directory = directory / parts[depth]
        return verdict
