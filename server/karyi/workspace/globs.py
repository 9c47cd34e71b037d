"""Glob patterns as Gemini CLI's `glob` and `read_many_files` understand them.

`**` crosses directories, `{a,b}` alternates, dotfiles match (`dot: true`), and a
pattern without a slash matches only at its own level (`*.py` is the top level,
`**/*.py` everywhere), matching the `glob` package Gemini CLI uses; wcmatch does the
matching. Listing is ripgrep's (`search.list_files`), so `.gitignore` is honoured the
same way everywhere.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from wcmatch import glob as wglob

RECENT_SECONDS = 24 * 3600
"""Files modified this recently are listed first, newest first (Gemini CLI's threshold)."""

DEFAULT_EXCLUDES = (
    "**/node_modules/**",
    "**/.git/**",
    "**/.vscode/**",
    "**/.idea/**",
    "**/dist/**",
    "**/build/**",
    "**/coverage/**",
    "**/__pycache__/**",
    "**/*.pyc",
    "**/*.pyo",
    "**/*.{bin,exe,dll,so,dylib,class,jar,war,o,a,obj,lib,wasm}",
    "**/*.{zip,tar,gz,tgz,bz2,xz,rar,7z}",
    "**/*.{doc,docx,xls,xlsx,ppt,pptx,odt,ods,odp}",
    "**/*.{png,jpg,jpeg,gif,bmp,ico,webp,tiff,svgz,pdf,mp3,mp4,mov,avi,wav,flac,ogg,woff,woff2,ttf,otf,eot}",
    "**/*.{sqlite,sqlite3,db}",
    "**/.DS_Store",
    "**/.env",
    "**/.env.*",
)
"""What `read_many_files` leaves out unless `useDefaultExcludes` is false."""


def flags(case_sensitive: bool) -> int:
    """wcmatch flags for Gemini-style globbing."""
    f = wglob.GLOBSTAR | wglob.BRACE | wglob.DOTGLOB | wglob.FORCEUNIX
    return f if case_sensitive else f | wglob.IGNORECASE


class Matcher:
    """Matches relative paths against include patterns minus exclude patterns."""

    def __init__(
        self, include: Sequence[str], exclude: Sequence[str] = (), *, case_sensitive: bool = False
    ) -> None:
        self.flags = flags(case_sensitive)
        self.include = [_clean(p) for p in include]
        self.exclude = [_clean(p) for p in exclude]

    def __call__(self, rel: str) -> bool:
        """True when `rel` matches an include pattern and no exclude pattern."""
        if not wglob.globmatch(rel, self.include, flags=self.flags):
            return False
        return not (self.exclude and wglob.globmatch(rel, self.exclude, flags=self.flags))

    def excluded(self, rel: str) -> bool:
        """True when an exclude pattern matches `rel`."""
        return bool(self.exclude) and wglob.globmatch(rel, self.exclude, flags=self.flags)


def _clean(pattern: str) -> str:
    return pattern[2:] if pattern.startswith("./") else pattern


@dataclass(frozen=True)
class Found:
    """A listed file with its modification time."""

    rel: str
    path: Path
    mtime: float


def with_mtimes(directory: Path, rels: Iterable[str]) -> list[Found]:
    """`rels` under `directory` with their mtimes (vanished files dropped)."""
    out: list[Found] = []
    for rel in rels:
        path = directory / rel
        try:
            out.append(Found(rel, path, os.stat(path).st_mtime))
        except OSError:
            continue
    return out


def recent_first(files: Iterable[Found], now: float | None = None) -> list[Found]:
    """Files changed in the last 24 hours newest first, then the rest alphabetically."""
    now = time.time() if now is None else now
    files = list(files)
    recent = [f for f in files if now - f.mtime < RECENT_SECONDS]
    older = [f for f in files if now - f.mtime >= RECENT_SECONDS]
    recent.sort(key=lambda f: (-f.mtime, f.rel))
    older.sort(key=lambda f: f.rel)
    return recent + older
