"""A generated monorepo for `bench_monorepo.py`: packages with sources, `node_modules`
and build output, in the proportions and sizes of a real JavaScript/Python monorepo.

`tree(files)` builds it once under the temp directory and reuses it on later runs (a
stamp file marks a complete tree). About one directory per ten files; 55% of the files
are sources, 35% installed dependencies (`node_modules/`), 10% build output (`dist/`),
all git-ignored but the sources, which are committed (so `git status` has an index of
that many entries to check, as in a real monorepo). One source file in a hundred holds
`NEEDLE`.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

VERSION = "3"
PER_PACKAGE = (24, 12, 4)
"""Leaf directories per package: sources, installed dependencies, build output."""
DIRS_PER_PACKAGE = sum(PER_PACKAGE) + 12
"""With the directories above them (the package, `src/`, 4 modules, `node_modules/`, 4
dependencies, `dist/`)."""
SOURCE_KINDS = (".ts", ".ts", ".tsx", ".js", ".py", ".json", ".md")
DEP_KINDS = (".js", ".js", ".d.ts", ".json", ".map")
BUILD_KINDS = (".js", ".js.map", ".css")
GITIGNORE = "node_modules/\ndist/\nbuild/\n*.log\n.cache/\n"


def _packages(files: int) -> int:
    return max(1, files // 10 // DIRS_PER_PACKAGE)


def directories(files: int) -> int:
    """How many directories the tree of `files` files has (without `.git/`)."""
    return _packages(files) * DIRS_PER_PACKAGE + 1


def _dirs(files: int) -> list[tuple[str, str]]:
    """(relative directory, kind) for a tree of `files` files."""
    packages = _packages(files)
    out: list[tuple[str, str]] = []
    for p in range(packages):
        base = f"packages/pkg{p:04d}"
        out += [(f"{base}/src/mod{i // 6}/part{i % 6}", "src") for i in range(PER_PACKAGE[0])]
        out += [
            (f"{base}/node_modules/dep{i // 3}/{('lib', 'dist', 'types')[i % 3]}", "dep")
            for i in range(PER_PACKAGE[1])
        ]
        out += [(f"{base}/dist/chunk{i}", "build") for i in range(PER_PACKAGE[2])]
    return out


def _body(rnd: random.Random, n: int, size: int, needle: bool) -> bytes:
    lines = []
    total = 0
    j = 0
    while total < size:
        line = f"export function f{n}_{j}(value: number): number {{ return value * {j} + 1; }}\n"
        if needle and j == 3:
            line = f"// NEEDLE {n}: the marker the grep benchmark looks for\n"
        lines.append(line)
        total += len(line)
        j += 1
    return "".join(lines).encode()


def _size(rnd: random.Random) -> int:
    """Mostly small files, a long tail (median ~1 KB, a few of 100+ KB)."""
    return min(200_000, int(rnd.lognormvariate(7.0, 1.1)))


def generate(root: Path, files: int) -> None:
    """Write the tree into `root` (emptied first)."""
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    rnd = random.Random(21)
    dirs = _dirs(files)
    per_dir = files // len(dirs)
    extra = files - per_dir * len(dirs)
    n = 0
    for index, (rel, kind) in enumerate(dirs):
        folder = root / rel
        folder.mkdir(parents=True, exist_ok=True)
        kinds = {"src": SOURCE_KINDS, "dep": DEP_KINDS, "build": BUILD_KINDS}[kind]
        for _ in range(per_dir + (1 if index < extra else 0)):
            name = f"file{n}{rnd.choice(kinds)}"
            needle = kind == "src" and n % 100 == 0
            fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                os.write(fd, _body(rnd, n, _size(rnd), needle))
            finally:
                os.close(fd)
            n += 1
    (root / ".gitignore").write_text(GITIGNORE)
    (root / "README.md").write_text("# A generated monorepo\n" * 20)
    (root / "package.json").write_text('{"name": "mono", "private": true}\n')
    git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    git += ["-c", "gc.auto=0"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "the generated tree"], check=True)


def tree(files: int, where: Path | None = None) -> Path:
    """The tree of `files` files, generated on first use and cached between runs."""
    base = where or Path(tempfile.gettempdir())
    root = base / f"karyi-bench-monorepo-{files}"
    stamp = root / ".git" / "karyi-bench-complete"
    if stamp.exists() and stamp.read_text() == VERSION:
        return root
    generate(root, files)
    stamp.write_text(VERSION)
    return root
