"""Custom slash commands: prompt files the user or the repository writes
(docs/workflow.md#custom-commands).

`.karyi/commands/NAME.md` in the workspace and `<user config dir>/karyi/commands/NAME.md`
each become `/NAME`. A file's description is its `description:` line (in `---` front
matter or as the first line), else its first line; the rest is the prompt, where
`$ARGUMENTS` is replaced by what follows `/NAME` (without it, the arguments are added
at the end). The user's file wins over the repository's of the same name, and
Karyi's own commands (`/plan`, `/act`, the tasks) over both. An enabled plugin's
commands are `/PLUGIN:NAME`, and `/NAME` too when nothing else has that name; then each
skill is `/NAME` when the name is still free. A command file is only a prompt: it makes
the model read text, never run a program by itself.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from karyi.agent.prompting.modes import MODES
from karyi.settings import user_settings_path
from karyi.settings.plugins import enabled_plugins
from karyi.tools.skill_files import load_skills

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
RESERVED = frozenset({"plan", "act", "explain", "fix", "tests", "memory"})
"""Karyi's own commands: a file cannot replace them."""
MAX_BYTES = 100_000
MEMORY = "show the memory files (KARYI.md, the agent's own notes) and open them"
"""`/memory`, which the front ends answer themselves (agent/prompting/memory_view.py)."""


class SlashCommandJson(TypedDict):
    """A slash command as front ends list it (`karyi/commands`, docs/workflow.md); `path`
    is empty for a built-in one."""

    name: str
    description: str
    scope: str
    path: str


@dataclass(frozen=True)
class CustomCommand:
    """One prompt file as a slash command."""

    name: str
    description: str
    prompt: str
    scope: str
    """`user`, `workspace` or `plugin NAME`."""
    path: str

    def expand(self, arguments: str) -> str:
        """The prompt with `$ARGUMENTS` filled in (or the arguments added at the end)."""
        arguments = arguments.strip()
        if "$ARGUMENTS" in self.prompt:
            return self.prompt.replace("$ARGUMENTS", arguments).strip()
        return f"{self.prompt}\n\n{arguments}".strip()

    def to_json(self) -> SlashCommandJson:
        """`{name, description, scope, path}` for the front ends' lists."""
        return {
            "name": self.name,
            "description": self.description,
            "scope": self.scope,
            "path": self.path,
        }


def parse(name: str, text: str, scope: str, path: str) -> CustomCommand:
    """A command from its file's text."""
    body = text.replace("\r\n", "\n").strip("\n")
    description = ""
    if body.startswith("---\n") and "\n---" in body[4:]:
        head, _, body = body[4:].partition("\n---")
        body = body.lstrip("-").lstrip("\n")
        for line in head.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "description":
                description = value.strip().strip("\"'")
    elif body.lower().startswith("description:"):
        first, _, body = body.partition("\n")
        description = first.split(":", 1)[1].strip()
    if not description:
        first_line = next((line for line in body.splitlines() if line.strip()), "")
        description = first_line.strip().lstrip("#").strip()[:120]
    return CustomCommand(name, description, body.strip(), scope, path)


def command_dirs(root: Path, env: Mapping[str, str] | None = None) -> list[tuple[str, Path]]:
    """Where command files are looked for, the one that wins last."""
    return [
        ("workspace", root / ".karyi" / "commands"),
        ("user", user_settings_path(env).parent / "commands"),
    ]


def load_commands(root: Path, env: Mapping[str, str] | None = None) -> dict[str, CustomCommand]:
    """Every usable command file by name (unreadable and oddly named files are skipped)."""
    found: dict[str, CustomCommand] = {}
    for scope, folder in command_dirs(root, env):
        try:
            files = sorted(folder.glob("*.md"))
        except OSError:
            continue
        for path in files:
            name = path.stem
            if not NAME.match(name) or name in RESERVED:
                continue
            try:
                if path.stat().st_size > MAX_BYTES:
                    continue
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            found[name] = parse(name, text, scope, str(path))
    _add_plugin_commands(found, root, env)
    _add_skills(found, root, env)
    return dict(sorted(found.items()))


def _add_skills(found: dict[str, CustomCommand], root: Path, env: Mapping[str, str] | None) -> None:
    """Each skill as `/NAME` when no command has the name (as Claude Code offers them): a
    prompt to load it with the `skill` tool, then the arguments (docs/extensions.md#skills)."""
    for skill in load_skills([root], env=env).skills.values():
        if skill.name in found or skill.name in RESERVED or not NAME.match(skill.name):
            continue
        prompt = (
            f"Use the skill {skill.name} for this: load it with the `skill` tool "
            f"(name {skill.name!r}) first, then follow it."
        )
        found[skill.name] = CustomCommand(
            skill.name, skill.description, prompt, f"skill ({skill.scope})", str(skill.path)
        )


def _add_plugin_commands(
    found: dict[str, CustomCommand], root: Path, env: Mapping[str, str] | None
) -> None:
    """Each enabled plugin's `commands/*.md` as `/PLUGIN:NAME`, and as `/NAME` when no
    other command has the name (docs/extensions.md#plugins)."""
    by_short: dict[str, list[CustomCommand]] = {}
    for plugin in enabled_plugins(root, env):
        for folder in plugin.part_dirs("commands"):
            for path in sorted(folder.glob("*.md")):
                if not NAME.match(path.stem) or not NAME.match(plugin.name):
                    continue
                try:
                    text = path.read_text(encoding="utf-8")[:MAX_BYTES]
                except (OSError, UnicodeDecodeError):
                    continue
                name = f"{plugin.name}:{path.stem}"
                command = parse(name, text, f"plugin {plugin.name}", str(path))
                found.setdefault(name, command)
                by_short.setdefault(path.stem, []).append(command)
    for short, commands in by_short.items():
        if len(commands) == 1 and short not in found and short not in RESERVED:
            found[short] = dataclasses.replace(commands[0], name=short)


def expand_command(text: str, commands: Mapping[str, CustomCommand]) -> str:
    """`/NAME args` → the command's prompt; any other text unchanged."""
    stripped = text.lstrip()
    if not stripped.startswith("/"):
        return text
    head, _, rest = stripped[1:].partition(" ")
    name, _, more = head.partition("\n")
    command = commands.get(name)
    if command is None:
        return text
    arguments = f"{more}\n{rest}" if more else rest
    return command.expand(arguments)


def slash_commands(root: Path, env: Mapping[str, str] | None = None) -> list[SlashCommandJson]:
    """Every slash command a message may start with: the modes' (`/plan`, `/act`), then
    the custom ones, as `{name, description, scope, path}` (what the front ends list)."""
    builtin: list[SlashCommandJson] = [
        {"name": m.id, "description": m.description, "scope": "builtin", "path": ""} for m in MODES
    ]
    builtin.append({"name": "memory", "description": MEMORY, "scope": "builtin", "path": ""})
    return builtin + [c.to_json() for c in load_commands(root, env).values()]
