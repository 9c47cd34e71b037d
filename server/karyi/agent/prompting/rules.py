"""Project rules: the written instructions a repository and its user give every agent.

Read, lowest precedence first (docs/context.md#rules):

1. the user's own rules: `<user config dir>/karyi/AGENTS.md`, then
   `<user config dir>/karyi/rules/*.md` by name, then the user's memory (`KARYI.md`);
2. per workspace root: `AGENTS.md` at the root, then `.karyi/rules/*.md` by name, then
   the workspace memory (`KARYI.md`, facts saved with `save_memory`);
3. the nearest `AGENTS.md` above each file the session has worked on (read or
   written), shallower folders first;
4. with settings `memory.auto`, the agent's own notes on this workspace (`remember`),
   cut at `memory.maxChars`.

A later file wins where two disagree. Files are re-read whenever their modification
time changes, so an edit (by the user or the agent) counts from the next model call.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypedDict

from karyi.settings import user_settings_path
from karyi.settings.sections import Memory
from karyi.tools.builtin.memory import FILE_NAME as MEMORY_FILE
from karyi.tools.builtin.memory import auto_memory_path

AGENTS_FILE = "AGENTS.md"
RULES_DIR = Path(".karyi") / "rules"
MAX_RULE_CHARS = 20_000
"""A rule file longer than this is cut (with a note): rules ride on every request."""


class RuleJson(TypedDict):
    """A rule file in force as front ends list it (`karyi/rules`, docs/context.md#rules)."""

    path: str
    scope: str


@dataclass(frozen=True)
class RuleFile:
    """One rule file in force: where it is, why it applies, and its text."""

    path: Path
    scope: str
    """`user`, `project` (a root's files), `folder` (a nested AGENTS.md), `memory` or
    `auto memory` (the agent's own notes)."""
    text: str

    def to_json(self) -> RuleJson:
        """The form front ends show (`karyi/rules`, `karyi run`'s first lines)."""
        return {"path": str(self.path), "scope": self.scope}


@lru_cache(maxsize=256)
def _read(path: str, mtime_ns: int, size: int) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(MAX_RULE_CHARS + 1)
    except OSError:
        return ""
    if len(text) > MAX_RULE_CHARS:
        text = text[:MAX_RULE_CHARS] + f"\n[cut: only the first {MAX_RULE_CHARS} characters]"
    return text.strip()


def _load(path: Path, scope: str) -> RuleFile | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not os.path.isfile(path):
        return None
    text = _read(str(path), st.st_mtime_ns, st.st_size)
    return RuleFile(path, scope, text) if text else None


def _rules_dir(directory: Path) -> list[Path]:
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".md"))
    except OSError:
        return []
    return [directory / n for n in names]


def user_rule_paths(env: Mapping[str, str] | None = None) -> list[Path]:
    """The user's own rule files that exist, in precedence order."""
    base = user_settings_path(env).parent
    return [base / AGENTS_FILE, *_rules_dir(base / "rules"), base / MEMORY_FILE]


def root_rule_paths(root: Path) -> list[Path]:
    """A workspace root's rule files, in precedence order."""
    return [root / AGENTS_FILE, *_rules_dir(root / RULES_DIR), root / MEMORY_FILE]


def _nearest_agents(path: Path, root: Path) -> Path | None:
    """The nearest AGENTS.md above `path` strictly below `root` (the root's own is read
    anyway), or None."""
    directory = path.parent
    while directory != root and root in directory.parents:
        candidate = directory / AGENTS_FILE
        if candidate.is_file():
            return candidate
        directory = directory.parent
    return None


def rule_files(
    roots: Sequence[Path],
    touched: Iterable[Path] = (),
    env: Mapping[str, str] | None = None,
    memory: Memory | None = None,
) -> list[RuleFile]:
    """Every rule file in force, lowest precedence first (see the module docstring)."""
    out: list[RuleFile] = []
    for path in user_rule_paths(env):
        scope = "memory" if path.name == MEMORY_FILE else "user"
        if (rule := _load(path, scope)) is not None:
            out.append(rule)
    for root in roots:
        for path in root_rule_paths(root):
            scope = "memory" if path.name == MEMORY_FILE and path.parent == root else "project"
            if (rule := _load(path, scope)) is not None:
                out.append(rule)
    nested: set[Path] = set()
    for path in touched:
        for root in roots:
            if root in path.parents:
                found = _nearest_agents(path, root)
                if found is not None:
                    nested.add(found)
                break
    for path in sorted(nested, key=lambda p: (len(p.parts), str(p))):
        if (rule := _load(path, "folder")) is not None:
            out.append(rule)
    notes = None
    if memory is not None and memory.auto and roots:
        notes = auto_memory(auto_memory_path(roots[0], env), memory.max_chars)
    return [*out, notes] if notes is not None else out


def auto_memory(path: Path, cap: int) -> RuleFile | None:
    """The agent's notes (`remember`), their first `cap` characters; None when empty."""
    text = _load(path, "auto memory")
    if text is None or cap <= 0:
        return None
    if len(text.text) <= cap:
        return text
    cut = text.text[:cap].rsplit("\n", 1)[0]
    note = f"\n[cut at memory.maxChars ({cap}): keep your notes short, or tidy {path}]"
    return RuleFile(path, text.scope, cut + note)


def rules_text(rules: Sequence[RuleFile]) -> str:
    """The rules as the system prompt carries them: each under its path."""
    return "\n\n".join(f"## {r.path} ({r.scope})\n{r.text}" for r in rules)
