"""The workspace's `.karyi/` folder: Karyi's local state, kept out of the user's git."""

from __future__ import annotations

from pathlib import Path

GITIGNORE = (
    "# Karyi's local state; only settings.json and commands/ are meant to be shared\n"
    "*\n!settings.json\n!.gitignore\n!commands/\n!commands/**\n"
)


def local_dir(root: Path) -> Path:
    """`<root>/.karyi/`, created with a `.gitignore` that keeps everything but settings out."""
    path = root / ".karyi"
    path.mkdir(exist_ok=True)
    ignore = path / ".gitignore"
    if not ignore.exists():
        ignore.write_text(GITIGNORE)
    return path
