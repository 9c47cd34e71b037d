"""Which workspace files git ignores, so listings and searches skip build output.

Reads every `.gitignore` from the workspace root down to a path's directory with
pathspec's git-compatible matcher; a deeper file's rule wins, as in git. `.git/` is
always ignored.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

ALWAYS_IGNORED = frozenset({".git"})


@lru_cache(maxsize=1024)
def _spec(gitignore: str, mtime_ns: int) -> GitIgnoreSpec | None:
    from pathspec import GitIgnoreSpec  # with the first .gitignore read

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
    """Answers "does git ignore this path?" for paths under the workspace's folders (each
    folder is a root of its own `.gitignore` files)."""

    def __init__(self, root: Path, *more: Path) -> None:
        self.root = root
        self.roots = (root, *more)

    def ignored(self, path: Path, is_dir: bool | None = None) -> bool:
        """True when `path` (under a root) is ignored by some `.gitignore` on its way."""
        inside = [r for r in self.roots if r == path or r in path.parents]
        if not inside:
            return False
        root = max(inside, key=lambda r: len(r.parts))
        rel = path.relative_to(root)
        if any(part in ALWAYS_IGNORED for part in rel.parts):
            return True
        if is_dir is None:
            is_dir = path.is_dir()
        verdict = False
        directory = root
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
