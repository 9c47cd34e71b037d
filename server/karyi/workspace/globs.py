"""Glob patterns as Gemini CLI's `glob` and `read_many_files` understand them.

`**` crosses directories, `{a,b}` alternates, dotfiles match (`dot: true`), and a
pattern without a slash matches only at its own level (`*.py` is the top level,
`**/*.py` everywhere), matching the `glob` package Gemini CLI uses; wcmatch does the
matching. Listing is ripgrep's (`search.find_files`), so `.gitignore` is honoured the
same way everywhere.

On a large tree the listing, not the matching, is the cost: `walk_for` tells ripgrep
where to look (the directories the patterns name before their first wildcard, found
case-insensitively when matching is) and which file names can match (the `*.ext` of a
last segment), so only candidates reach Python, where the exact match is made with the
patterns compiled once (docs/tools.md#glob).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wcmatch import glob as wglob

from karyi.workspace.ignore import GitIgnore

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
        self.case_sensitive = case_sensitive
        self.include = [_clean(p) for p in include]
        self.exclude = [_clean(p) for p in exclude]
        self._include = _regex(self.include, self.flags)
        self._exclude = _regex(self.exclude, self.flags)

    def __call__(self, rel: str) -> bool:
        """True when `rel` matches an include pattern and no exclude pattern."""
        if self._include is None or not self._include.match(rel):
            return False
        return not (self._exclude is not None and self._exclude.match(rel))

    def excluded(self, rel: str) -> bool:
        """True when an exclude pattern matches `rel`."""
        return self._exclude is not None and bool(self._exclude.match(rel))


def _regex(patterns: Sequence[str], flags: int) -> re.Pattern[str] | None:
    """One regex for `patterns`: wcmatch's translation, matched without its per-call
    wrapper (a large listing is matched file by file)."""
    if not patterns:
        return None
    regexes, _ = wglob.translate(list(patterns), flags=flags)
    return re.compile("|".join(f"(?:{r})" for r in regexes))


_MAGIC = wglob.BRACE | wglob.GLOBSTAR
SKIPPED = frozenset({".git", "node_modules"})
"""Directories no listing enters (`search.ALWAYS_EXCLUDED`)."""


@dataclass(frozen=True)
class Walk:
    """Where a listing for some patterns must look, and which names can match."""

    under: list[str] = field(default_factory=list)
    """Directories (relative) to list; empty: the whole tree."""
    names: list[str] = field(default_factory=list)
    """Case-insensitive file-name globs one of which every match satisfies; empty: any."""
    nothing: bool = False
    """No directory a pattern names exists: nothing can match."""


def walk_for(root: Path, matcher: Matcher, ignore: GitIgnore | None = None) -> Walk:
    """The smallest listing that still finds every file `matcher` accepts.

    ripgrep lists a directory it is given even when it is ignored, so the directories
    `ignore` (the workspace's `.gitignore`s) or the listing's own rules leave out are
    dropped here.
    """
    bases: list[list[str]] = []
    names: list[str] = []
    any_name = False
    for pattern in matcher.include:
        segments = pattern.split("/")
        literal: list[str] = []
        for seg in segments[:-1]:
            if wglob.is_magic(seg, flags=_MAGIC) or seg in ("", ".", ".."):
                break
            literal.append(seg)
        bases.append(literal)
        last = segments[-1]
        if last.startswith("*") and last[1:] and not wglob.is_magic(last[1:], flags=_MAGIC):
            names.append(last)
        else:
            any_name = True
    common = _common(bases)
    if not common:
        return Walk(names=[] if any_name else names)
    found = [
        rel
        for rel in _directories(root, common, matcher.case_sensitive)
        if not SKIPPED.intersection(rel.split("/"))
        and not (ignore is not None and ignore.ignored(root / rel, True))
    ]
    if not found:
        return Walk(nothing=True)
    return Walk(under=found, names=[] if any_name else names)


def _common(bases: list[list[str]]) -> list[str]:
    if not bases:
        return []
    out = []
    for parts in zip(*bases, strict=False):
        if any(p != parts[0] for p in parts):
            break
        out.append(parts[0])
    return out


def _directories(root: Path, segments: list[str], case_sensitive: bool) -> list[str]:
    """The directories `segments` names under `root`; without case, every spelling."""
    level = [""]
    for seg in segments:
        nxt = []
        for rel in level:
            if case_sensitive:
                with contextlib.suppress(OSError):  # lstat: never a symlink out of the tree
                    if stat.S_ISDIR(os.lstat(root / rel / seg).st_mode):
                        nxt.append(f"{rel}{seg}/")
                continue
            try:
                with os.scandir(root / rel) as entries:
                    nxt += [
                        f"{rel}{e.name}/"
                        for e in entries
                        if e.name.lower() == seg.lower() and e.is_dir(follow_symlinks=False)
                    ]
            except OSError:
                continue
        level = nxt
    return [rel.rstrip("/") for rel in level]


def _clean(pattern: str) -> str:
    return pattern[2:] if pattern.startswith("./") else pattern


@dataclass(frozen=True)
class Found:
    """A listed file with its modification time."""

    rel: str
    path: str
    mtime: float


def with_mtimes(directory: Path, rels: Iterable[str]) -> list[Found]:
    """`rels` under `directory` with their mtimes (vanished files dropped); plain strings,
    as a `Path` per file would cost more than its stat on a large listing."""
    base = str(directory)
    out: list[Found] = []
    for rel in rels:
        path = os.path.join(base, rel)
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
