"""`skill`: load an Agent Skill's instructions when the task needs them
(docs/extensions.md#skills).

The system prompt lists every skill by name and description only
(tools/skill_files.py); this tool returns a skill's body and names its other files,
which `file` reads (a skill of the user's lives outside the workspace, where the read
tools do not reach). A skill's `allowed-tools` pre-approves those tools for the rest of
the session, but only for a skill the user installed for themselves: a repository's
skill may not free the agent, so its list is reported and ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from karyi.core.claude_names import CLAUDE_TOOLS
from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.context import ToolContext
from karyi.tools.skill_files import MAX_BYTES, Skill, load_skills
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class


def granted_tools(entries: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(Karyi tool names that `allowed-tools` pre-approves, entries it cannot honour).
    A pattern such as `Bash(git:*)` is not honoured: its calls keep asking."""
    names: list[str] = []
    refused: list[str] = []
    for entry in entries:
        if "(" in entry:
            refused.append(entry)
            continue
        names += [entry, *CLAUDE_TOOLS.get(entry.lower(), ())]
    return sorted(set(names)), refused


def skill_file(skill: Skill, relative: str) -> Path:
    """`relative` inside the skill's folder (a ToolFailure for anything outside it)."""
    folder = skill.folder.resolve()
    path = (folder / relative).resolve()
    if folder not in path.parents:
        raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, f"file: {relative!r} is not in the skill")
    if not path.is_file():
        raise ToolFailure(ErrorCode.NOT_FOUND, f"file: {relative} does not exist in the skill")
    return path


@param_class
class SkillParams(ToolParams):
    """`skill`'s parameters."""

    name: str = arg(min_length=1, description="the skill's name, as the list of skills says it")
    file: str | None = arg(
        implied=None,
        description="one of the skill's other files to read (a path its listing gives); "
        "leave out for the skill's instructions",
    )


class SkillTool(TypedTool[SkillParams]):
    """Reads a skill's instructions or one of its files."""

    name = "skill"
    display_name = "Skill"
    description = (
        "Load a skill: its instructions for a kind of task, and the list of its other files "
        "(scripts, references, templates). Use it when a task matches a skill's description "
        "in the list of skills, before starting the task; read a listed file with `file`."
    )
    example = {"name": "pdf-forms"}
    plan_safe = True

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        return f"Use skill {a.name}" + (f" ({a.file})" if a.file else "")

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The body and file list, or the file asked for."""
        a = self.args(params)
        found = load_skills(ctx.workspace.folders)
        skill = found.skills.get(a.name)
        if skill is None:
            names = ", ".join(sorted(found.skills)) or "none"
            raise ToolFailure(
                ErrorCode.NOT_FOUND, f"no skill named {a.name!r}; the skills are: {names}"
            )
        if a.file:
            path = skill_file(skill, a.file)
            text = path.read_text("utf-8", errors="replace")[:MAX_BYTES]
            data = {"name": skill.name, "file": a.file, "path": str(path)}
            return ToolResult.ok(text, data=data, display=f"Read {a.file} of skill {skill.name}")
        return _loaded(skill, ctx)


def _loaded(skill: Skill, ctx: ToolContext) -> ToolResult:
    files = skill.files()
    parts = [f"# Skill {skill.name} ({skill.scope}: {skill.folder})", skill.body()]
    if files:
        listed = "\n".join(f"- {f}" for f in files)
        parts.append(
            f"Files of this skill (read one with skill name={skill.name!r} file=…):\n{listed}"
        )
    granted, refused = granted_tools(skill.allowed_tools)
    if granted and skill.trusted:
        for tool in granted:
            ctx.skill_grants.setdefault(tool, skill.name)
        parts.append(f"Pre-approved while you use this skill: {', '.join(granted)}.")
    elif granted:
        refused = [*skill.allowed_tools]
        granted = []
    if refused:
        why = (
            "a workspace's skill may not pre-approve tools"
            if not skill.trusted
            else "tool patterns are not supported"
        )
        parts.append(f"Not pre-approved ({why}): {', '.join(refused)}; those calls still ask.")
    data = {
        "name": skill.name,
        "scope": skill.scope,
        "path": str(skill.path),
        "files": files,
        "granted": granted,
    }
    return ToolResult.ok("\n\n".join(parts), data=data, display=f"Using skill {skill.name}")
