"""Skill folders on disk as users and repositories write them (docs/extensions.md#skills)."""

from __future__ import annotations

from pathlib import Path


def write_skill(
    parent: Path, name: str, description: str, body: str = "", *, extra: str = "", **files: str
) -> Path:
    """`parent/name/SKILL.md` with that front matter and body, and `files` beside it
    (`scripts__run_py="..."` is `scripts/run.py`). Returns the SKILL.md."""
    folder = parent / name
    folder.mkdir(parents=True, exist_ok=True)
    head = f"---\nname: {name}\ndescription: {description}\n{extra}---\n"
    path = folder / "SKILL.md"
    path.write_text(head + (body or f"Instructions of {name}.\n"), encoding="utf-8")
    for key, text in files.items():
        target = folder / key.replace("__", "/").replace("_py", ".py").replace("_md", ".md")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return path
