"""`/memory`: the memory files in force, to show and open (docs/extensions.md#memory).

The user's `KARYI.md`, each workspace folder's `KARYI.md` (facts saved with
`save_memory`, or written by hand), and with settings `memory.auto` the agent's own
notes (`remember`). Every front end shows the same list: `karyi run /memory` prints
it, ACP answers `/memory` with it, the language server's `karyi/memory` returns it and
VS Code opens the files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypedDict

from karyi.settings import Settings, user_settings_path
from karyi.tools.builtin.memory import FILE_NAME, auto_memory_path

MAX_SHOWN = 4000
"""Characters of each file `/memory` shows (the file itself is opened whole)."""


class MemoryFileJson(TypedDict):
    """One memory file as front ends list it (`karyi/memory`)."""

    path: str
    scope: str
    """`user`, `workspace` or `auto`."""
    exists: bool


def memory_files(
    folders: Sequence[Path], settings: Settings, env: Mapping[str, str] | None = None
) -> list[MemoryFileJson]:
    """The memory files of this workspace, whether or not they exist yet."""
    paths = [("user", user_settings_path(env).parent / FILE_NAME)]
    paths += [("workspace", folder / FILE_NAME) for folder in folders]
    if settings.memory.auto and folders:
        paths.append(("auto", auto_memory_path(folders[0], env)))
    return [{"path": str(p), "scope": s, "exists": p.is_file()} for s, p in paths]


def memory_text(files: Sequence[MemoryFileJson], redact: Callable[[str], str] = str) -> str:
    """What `/memory` shows: each file under its path, its text cut at `MAX_SHOWN`,
    secret values hidden by `redact`."""
    parts: list[str] = []
    for f in files:
        head = f"## {f['path']} ({f['scope']})"
        if not f["exists"]:
            parts.append(f"{head}\n(not written yet)")
            continue
        try:
            text = Path(f["path"]).read_text("utf-8", errors="replace")
        except OSError as exc:
            parts.append(f"{head}\n(unreadable: {exc.strerror})")
            continue
        if len(text) > MAX_SHOWN:
            text = text[:MAX_SHOWN] + f"\n[… {len(text) - MAX_SHOWN} more characters]"
        parts.append(f"{head}\n{redact(text.strip()) or '(empty)'}")
    return "\n\n".join(parts)
