"""The system prompt: agent instructions, workspace facts, project rules, tool instructions.

Prompt text lives in `prompts/*.md` templates; this module only fills them in. The
prompt is rebuilt for every model call, so a rule or memory changed mid-turn is seen.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from string import Template

from karyi.agent.prompting.modes import PLAN, offered
from karyi.protocol.base import Dialect
from karyi.tools.prompt import tool_prompt
from karyi.tools.registry import Toolkit
from karyi.tools.skill_files import SkillDir, listing, load_skills
from karyi.workspace.files import list_dir
from karyi.workspace.workspace import Workspace

MAX_LISTING = 60


@lru_cache(maxsize=8)
def template(name: str) -> Template:
    """A prompt template shipped in `karyi/agent/prompting/prompts/`."""
    text = (
        resources.files("karyi.agent.prompting")
        .joinpath("prompts", f"{name}.md")
        .read_text("utf-8")
    )
    return Template(text)


def default_instructions() -> str:
    """The default coding agent's instructions."""
    return template("coding").safe_substitute().strip()


def _git_facts(root: Path) -> str:
    """The branch, read from `.git/HEAD` without running git: git in a repository
    runs what its config says (`core.fsmonitor`, filters), and a cloned repository or
    a sandboxed command may have written that config."""
    dot_git = root / ".git"
    try:
        if dot_git.is_file():
            pointer = dot_git.read_text("utf-8", "replace").strip()
            if not pointer.startswith("gitdir:"):
                return ""
            git_dir = (root / pointer.removeprefix("gitdir:").strip()).resolve()
        elif dot_git.is_dir():
            git_dir = dot_git
        else:
            return "- Git: not a git repository\n"
        head = (git_dir / "HEAD").read_text("utf-8", "replace").strip()
    except OSError:
        return ""
    ref = head.removeprefix("ref:").strip()
    branch = (
        ref.removeprefix("refs/heads/") if head.startswith("ref:") else f"detached at {head[:12]}"
    )
    return f"- Git: branch {branch}\n"


def _listing(workspace: Workspace, folder: Path, indent: str = "  ") -> str:
    try:
        entries, ignored = list_dir(folder, ".", ignore=workspace.gitignore)
    except Exception:
        return f"{indent}(unreadable)"
    names = [f"{e.name}/" if e.is_dir else e.name for e in entries[:MAX_LISTING]]
    if len(entries) > MAX_LISTING:
        names.append(f"... and {len(entries) - MAX_LISTING} more")
    if ignored:
        names.append(f"({ignored} git-ignored)")
    return "\n".join(f"{indent}{n}" for n in names) or f"{indent}(empty)"


def _where(workspace: Workspace) -> tuple[str, str, str]:
    """The prompt's lines on the workspace's folders, the heading's tail, the listing."""
    if len(workspace.folders) == 1:
        root = workspace.root
        return f"- Root: {root} (relative paths are taken from here)", "", _listing(workspace, root)
    names = workspace.policy.folder_names
    folders = "; ".join(f"{n} = {p}" for n, p in names.items())
    where = (
        f"- Workspace folders: {folders}. Write paths as `folder/path` (e.g. "
        f"`{next(iter(names))}/README.md`); a relative path that names no folder is taken "
        f"from the first one."
    )
    listing = "\n".join(f"  {n}/\n{_listing(workspace, p, '    ')}" for n, p in names.items())
    return where, "'s folders", listing


def workspace_facts(workspace: Workspace, today: dt.date | None = None) -> dict[str, str]:
    """Facts about the workspace for the prompt; gathered once per turn (git is slow)."""
    where, of, listing = _where(workspace)
    return {
        "root": str(workspace.root),
        "where": where,
        "of": of,
        "platform": f"{platform.system()} {platform.release()}",
        "shell": os.environ.get("SHELL", "/bin/bash"),
        "date": (today or dt.date.today()).isoformat(),
        "git": _git_facts(workspace.root),
        "listing": listing,
    }


def skills_section(toolkit: Toolkit, workspace: Workspace, more: Sequence[SkillDir] = ()) -> str:
    """The skills' names and descriptions, within their budget (tools/skill_files.py);
    empty when the toolkit has no `skill` tool to load them with, or there are none."""
    if toolkit.get("skill") is None:
        return ""
    text = listing(load_skills(workspace.folders, more).skills.values())
    return template("skills").safe_substitute(skills=text).strip() + "\n" if text else ""


def system_prompt(
    *,
    instructions: str,
    dialect: Dialect,
    toolkit: Toolkit,
    workspace: Workspace,
    rules: str = "",
    facts: dict[str, str] | None = None,
    skills: str | None = None,
) -> str:
    """The whole system prompt for one model call (`rules`: `agent/prompting/rules.py`'s
    text; `skills`: `skills_section`'s, read here when not given)."""
    rules_section = template("rules").safe_substitute(rules=rules).strip() + "\n" if rules else ""
    if skills is None:
        skills = skills_section(toolkit, workspace)
    text = template("system").safe_substitute(
        instructions=instructions.strip(),
        rules=rules_section,
        skills=skills,
        tool_prompt=tool_prompt(toolkit, dialect).strip(),
        **(facts or workspace_facts(workspace)),
    )
    return text.strip() + "\n"


class SystemPromptCache:
    """The system prompt of a turn's model calls, rebuilt only when the session's mode or
    the rules in force change (a rule file the agent just read, a switch to plan)."""

    def __init__(self, redact: Callable[[str], str] | None = None) -> None:
        self._key = ""
        self._prompt = ""
        self._redact = redact
        """Hides secret values in what is read from files here (the skills' list)."""

    def clear(self) -> None:
        """Forget the prompt: a new turn rebuilds it (the tools or the facts changed)."""
        self._key = self._prompt = ""

    def get(
        self,
        *,
        instructions: str,
        dialect: Dialect,
        toolkit: Toolkit,
        workspace: Workspace,
        mode: str,
        rules: str,
        facts: dict[str, str],
    ) -> str:
        """The prompt for a call in `mode` with `rules` in force."""
        key = f"{mode}\n{rules}"
        if self._prompt and self._key == key:
            return self._prompt
        if mode == PLAN:
            instructions = f"{instructions}\n\n{template('plan_mode').safe_substitute()}"
        toolkit = offered(toolkit, mode)
        skills = skills_section(toolkit, workspace)
        self._prompt = system_prompt(
            instructions=instructions,
            dialect=dialect,
            toolkit=toolkit,
            workspace=workspace,
            rules=rules,
            facts=facts,
            skills=self._redact(skills) if self._redact else skills,
        )
        self._key = key
        return self._prompt
