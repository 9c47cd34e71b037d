"""Globs: the listing `walk_for` plans finds exactly what listing the whole tree finds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from wcmatch import glob as wglob

from karyi.workspace.globs import Matcher, flags, walk_for
from karyi.workspace.ignore import GitIgnore
from karyi.workspace.ripgrep import find_files, list_files

PATTERNS = [
    "**/*.py",
    "*.py",
    "src/**/*.ts",
    "SRC/**/*.TS",
    "src/*.py",
    "src/lib/deep/*.md",
    "build/*.py",
    "node_modules/**",
    "docs/**",
    "missing/**/*.py",
    "**/README*",
    "src/{lib,app}/**",
    "link/**",
    "Src/Lib/**/*.py",
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "t"
    files = [
        "a.py", "b.ts", "README.md", ".gitignore", "src/x.py", "src/app/y.ts",
        "src/lib/z.py", "src/lib/deep/notes.md", "src/lib/deep/w.TS", "Src/Lib/q.py",
        "build/gen.py", "node_modules/m/index.js", "docs/README.txt", "docs/guide/p.py",
    ]  # fmt: skip
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    (root / ".gitignore").write_text("build/\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("x\n")
    os.symlink(outside, root / "link")
    return root


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("case_sensitive", [False, True])
@pytest.mark.parametrize("respect", [True, False])
async def test_the_planned_listing_equals_the_whole_listing_filtered(
    tree: Path, pattern: str, case_sensitive: bool, respect: bool
) -> None:
    matcher = Matcher([pattern], case_sensitive=case_sensitive)
    whole = [rel for rel in await list_files(tree, respect_git_ignore=respect) if matcher(rel)]
    walk = walk_for(tree, matcher, GitIgnore(tree) if respect else None)
    planned = await find_files(
        tree, respect_git_ignore=respect, under=walk.under, names=walk.names, keep=matcher
    )
    assert not planned.capped
    assert ([] if walk.nothing else sorted(planned.files)) == sorted(whole)


async def test_the_walk_is_narrowed_to_named_directories_and_names(tree: Path) -> None:
    walk = walk_for(tree, Matcher(["SRC/**/*.TS"]))
    assert (sorted(walk.under), walk.names) == (["Src", "src"], ["*.TS"])
    assert walk_for(tree, Matcher(["link/**"])).nothing  # a symlink out of the tree
    assert walk_for(tree, Matcher(["build/*.py"]), GitIgnore(tree)).nothing
    assert walk_for(tree, Matcher(["**/*.py", "docs/**"])).under == []


async def test_a_listing_stops_at_its_limit(tree: Path) -> None:
    listing = await find_files(tree, keep=lambda rel: rel.endswith(".py"), limit=2)
    assert listing.capped and len(listing.files) == 2
    everything = await find_files(tree, limit=100)
    assert not everything.capped and everything.files == await list_files(tree)


@pytest.mark.parametrize("case_sensitive", [False, True])
def test_the_compiled_matcher_agrees_with_wcmatch(case_sensitive: bool) -> None:
    paths = ["a.py", "A.PY", "src/x.py", ".hidden.py", "src/.cfg/y.ts", "a/b/c/d.md", "b.tsx"]
    excludes = ["**/.cfg/**", "a/**"]
    for pattern in [*PATTERNS, "*", "**", "**/*.{py,ts}", "[ab].*", "src/?.py", "**/.*"]:
        matcher = Matcher([pattern], excludes, case_sensitive=case_sensitive)
        f = flags(case_sensitive)
        for path in paths:
            want = wglob.globmatch(path, [pattern], flags=f) and not wglob.globmatch(
                path, excludes, flags=f
            )
            assert matcher(path) == want, (pattern, path)
