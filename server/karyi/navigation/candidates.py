"""The files that may declare a name: a word search before asking a language server.

`workspace/symbol` makes pyright's family search every file's symbols: a quarter of a
second on a 1,000-file project. A declaration of `NAME` is written in a file that holds
the word, so ripgrep (`rg -l -w`, with the workspace's ignore rules) names the few files
to outline instead (from a warm index of the files' words, `words.py`, where the
navigator keeps one); the editor's unsaved buffers that hold it count too
(docs/context.md#where-navigation-answers-come-from).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from karyi.navigation.words import WordIndex
from karyi.workspace.ripgrep import base_args, rg_binary

OUTLINE_FILES = 24
"""Above this many files holding the word, the server's own symbol search is asked."""


async def files_naming(
    root: Path,
    name: str,
    extensions: Iterable[str],
    buffers: Mapping[Path, str],
    words: WordIndex | None = None,
) -> list[Path] | None:
    """The files under `root` with one of `extensions` that hold `name` as a word (open
    buffers as the user sees them), from the warm `words` index when it answers, else by
    ripgrep; None when neither could."""
    found = None if words is None else await words.files_with(name, root)
    if found is None:
        found = await _rg_naming(root, name, extensions)
    if found is None:
        return None
    return _with_buffers(set(found), root, name, buffers)


async def _rg_naming(root: Path, name: str, extensions: Iterable[str]) -> list[Path] | None:
    globs = [arg for ext in sorted(extensions) for arg in ("-g", f"*{ext}")]
    try:
        process = await asyncio.create_subprocess_exec(
            rg_binary(),
            *base_args(sort=False),
            "-l",
            "-w",
            "-F",
            "--no-messages",
            *globs,
            "--",
            name,
            str(root),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        out, _ = await process.communicate()
    except OSError:
        return None
    if process.returncode not in (0, 1):
        return None
    return [Path(line) for line in out.decode("utf-8", "replace").splitlines() if line]


def _with_buffers(
    found: set[Path], root: Path, name: str, buffers: Mapping[Path, str]
) -> list[Path]:
    """`found` with each open buffer under `root` in or out by what the user sees."""
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    for path, text in buffers.items():
        if path.is_relative_to(root):
            found.discard(path)
            if word.search(text):
                found.add(path)
    return sorted(found)
