"""Agent Skills: folders with a `SKILL.md` the user, the repository or a plugin wrote
(docs/extensions.md#skills).

A skill is a folder holding `SKILL.md` (YAML front matter with `name` and
`description`, then the instructions) and any files it needs. They are found in
`<user config dir>/karyi/skills/`, then in every workspace folder's `.karyi/skills/`,
`.agents/skills/` and `.claude/skills/` (read as Claude Code, Codex and Gemini CLI
write them), then in the enabled plugins' `skills/`; the first skill of a name wins, so
a repository cannot shadow a skill of the user's. Only each skill's name and
description go into the system prompt (`listing`); the `skill` tool
(tools/builtin/skills.py) returns the body when the task needs it.

A front matter that is not YAML, not a mapping, or lacks a description is a warning
naming the file, and that skill is left out: never a failure. Files are re-parsed only
when their size or modification time changes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, TypedDict

from karyi.core.front_matter import FrontMatterError, front_matter, split_front_matter
from karyi.core.user_dir import karyi_config_dir
from karyi.settings.plugins import enabled_plugins

SKILL_FILE = "SKILL.md"
WORKSPACE_DIRS = (".karyi/skills", ".agents/skills", ".claude/skills")
"""Where a workspace folder keeps skills, the one that wins first."""
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
MAX_BYTES = 200_000
"""A SKILL.md longer than this is not read (a skill's body rides in the conversation)."""
MAX_DESCRIPTION = 1024
MAX_FILES = 200
PROMPT_CHARS = 8_000
"""The system prompt's budget for names with descriptions (about 2% of a 100k-token
window); the skills beyond it are named only, within half as much again."""


@dataclass(frozen=True)
class SkillDir:
    """A folder of skill folders: its scope, and whether its skills' `allowed-tools` may
    pre-approve calls (only what the user installed for themselves: a repository's
    skills may only tighten, docs/security.md)."""

    scope: str
    path: Path
    trusted: bool = False


class SkillJson(TypedDict):
    """A skill as front ends list it (`karyi/tools`' `skills`)."""

    name: str
    description: str
    scope: str
    path: str


@dataclass(frozen=True)
class Skill:
    """One skill: what the prompt lists and where the rest is."""

    name: str
    description: str
    path: Path
    """Its SKILL.md."""
    scope: str
    """`user`, `workspace` or `plugin NAME`."""
    trusted: bool = False
    """Whether `allowed_tools` may pre-approve calls (`SkillDir.trusted`)."""
    allowed_tools: tuple[str, ...] = ()
    """Tools its front matter pre-approves while it is in use (`allowed-tools`)."""
    listed: bool = True
    """False when `disable-model-invocation` keeps it out of the prompt."""

    def to_json(self) -> SkillJson:
        """`{name, description, scope, path}` for the front ends."""
        return {
            "name": self.name,
            "description": self.description,
            "scope": self.scope,
            "path": str(self.path),
        }

    @property
    def folder(self) -> Path:
        """The skill's folder."""
        return self.path.parent

    def body(self) -> str:
        """The instructions after the front matter (read again: it may have changed)."""
        text = _read(self.path)
        return split_front_matter(text)[1].strip()

    def files(self) -> list[str]:
        """The skill's other files, relative to its folder, sorted (hidden ones left out)."""
        out: list[str] = []
        for dirpath, dirnames, filenames in os.walk(self.folder):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            base = Path(dirpath)
            for name in sorted(filenames):
                path = base / name
                if name.startswith(".") or path == self.path:
                    continue
                out.append(path.relative_to(self.folder).as_posix())
                if len(out) >= MAX_FILES:
                    return out
        return out


@dataclass
class SkillSet:
    """The skills in force, by name, and the warnings about the ones left out."""

    skills: dict[str, Skill] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read(MAX_BYTES + 1)


def _tools(value: Any) -> tuple[str, ...]:
    """`allowed-tools` as a list: YAML list, or a string split on commas and spaces
    (Claude Code writes `Read, Grep`, the Agent Skills format `Read Grep`)."""
    if value is None:
        return ()
    if isinstance(value, str):
        # Split on commas and spaces, but keep `Bash(git log:*)` whole.
        return tuple(t for t in re.findall(r"[^\s,()]+(?:\([^)]*\))?", value) if t)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    raise FrontMatterError("allowed-tools: expected a list of tool names or a string")


def parse_skill(path: Path, text: str, scope: str, trusted: bool = False) -> Skill:
    """A skill from its SKILL.md's text (FrontMatterError says what is wrong)."""
    meta, _body = front_matter(text)
    name = meta.get("name", path.parent.name)
    if not isinstance(name, str) or not NAME.match(name.strip()):
        raise FrontMatterError(f"name: expected letters, digits, '-', '_' (got {name!r})")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise FrontMatterError("description: missing (it is what tells the agent when to use it)")
    listed = meta.get("disable-model-invocation") is not True
    description = " ".join(description.split())[:MAX_DESCRIPTION]
    tools = _tools(meta.get("allowed-tools"))
    return Skill(name.strip(), description, path, scope, trusted, tools, listed)


@lru_cache(maxsize=1024)
def _parsed(path: str, scope: str, trusted: bool, mtime_ns: int, size: int) -> Skill | str:
    """The skill, or the warning about it (cached while the file is unchanged)."""
    try:
        if size > MAX_BYTES:
            return f"{path}: skipped: larger than {MAX_BYTES} bytes"
        return parse_skill(Path(path), _read(Path(path)), scope, trusted)
    except FrontMatterError as exc:
        return f"{path}: skipped: {exc}"
    except OSError as exc:
        return f"{path}: skipped: {exc.strerror or exc}"


def user_skills_dir(env: Mapping[str, str] | None = None) -> Path:
    """`<user config dir>/karyi/skills`."""
    return karyi_config_dir(env) / "skills"


def skill_dirs(
    folders: Sequence[Path], more: Iterable[SkillDir] = (), env: Mapping[str, str] | None = None
) -> list[SkillDir]:
    """Where skills are looked for, the one that wins first."""
    dirs = [SkillDir("user", user_skills_dir(env), trusted=True)]
    dirs += [SkillDir("workspace", folder / sub) for folder in folders for sub in WORKSPACE_DIRS]
    for plugin in enabled_plugins(folders[0] if folders else None, env):
        scope = f"plugin {plugin.name}"
        dirs += [SkillDir(scope, d, plugin.trusted) for d in plugin.part_dirs("skills")]
    return dirs + list(more)


def _candidates(directory: Path) -> list[Path]:
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    return [directory / n / SKILL_FILE for n in names if not n.startswith(".")]


def load_skills(
    folders: Sequence[Path],
    more: Iterable[SkillDir] = (),
    env: Mapping[str, str] | None = None,
) -> SkillSet:
    """Every skill in force (see the module docstring)."""
    found = SkillSet()
    for where in skill_dirs(folders, more, env):
        for path in _candidates(where.path):
            try:
                st = path.stat()
            except OSError:
                continue
            got = _parsed(str(path), where.scope, where.trusted, st.st_mtime_ns, st.st_size)
            if isinstance(got, str):
                found.warnings.append(got)
            elif got.name not in found.skills:
                found.skills[got.name] = got
    return found


def listing(skills: Iterable[Skill], budget: int = PROMPT_CHARS) -> str:
    """The skills as the system prompt lists them: name and description while the
    budget lasts, then the names of the rest, then how many more."""
    lines: list[str] = []
    rest: list[str] = []
    used = 0
    for skill in skills:
        if not skill.listed:
            continue
        line = f"- {skill.name}: {skill.description}"
        if not rest and used + len(line) + 1 <= budget:
            lines.append(line)
            used += len(line) + 1
        else:
            rest.append(skill.name)
    if rest:
        named, more, room = [], 0, budget // 2
        for name in rest:
            if room - len(name) - 2 < 0:
                more += 1
                continue
            named.append(name)
            room -= len(name) + 2
        tail = f" and {more} more" if more else ""
        names = ", ".join(named)
        lines.append(
            f"- Also available (load one with `skill` to see what it is for): {names}{tail}"
        )
    return "\n".join(lines)
