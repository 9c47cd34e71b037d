"""The system prompt: agent instructions, workspace facts, memory, tool instructions.

Prompt text lives in `prompts/*.md` templates; this module only fills them in. The
prompt is rebuilt for every model call, so a fact saved to memory mid-turn is seen.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
from functools import lru_cache
from importlib import resources
from pathlib import Path
from string import Template

from karyi.protocol.base import Dialect
from karyi.tools.prompt import tool_prompt
from karyi.tools.registry import Toolkit
from karyi.workspace.files import list_dir
from karyi.workspace.workspace import Workspace

MAX_LISTING = 60


@lru_cache(maxsize=8)
def template(name: str) -> Template:
    """A prompt template shipped in `karyi/agent/prompts/`."""
    text = resources.files("karyi.agent").joinpath("prompts", f"{name}.md").read_text("utf-8")
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


def _listing(workspace: Workspace) -> str:
    try:
        entries, ignored = list_dir(workspace.root, ".", ignore=workspace.gitignore)
    except Exception:
        return "(unreadable)"
    names = [f"{e.name}/" if e.is_dir else e.name for e in entries[:MAX_LISTING]]
    if len(entries) > MAX_LISTING:
        names.append(f"... and {len(entries) - MAX_LISTING} more")
    if ignored:
        names.append(f"({ignored} git-ignored)")
    return "\n".join(f"  {n}" for n in names) or "  (empty)"


def workspace_facts(workspace: Workspace, today: dt.date | None = None) -> dict[str, str]:
    """Facts about the workspace for the prompt; gathered once per turn (git is slow)."""
    return {
        "root": str(workspace.root),
        "platform": f"{platform.system()} {platform.release()}",
        "shell": os.environ.get("SHELL", "/bin/bash"),
        "date": (today or dt.date.today()).isoformat(),
        "git": _git_facts(workspace.root),
        "listing": _listing(workspace),
    }


def system_prompt(
    *,
    instructions: str,
    dialect: Dialect,
    toolkit: Toolkit,
    workspace: Workspace,
    memory: str = "",
    facts: dict[str, str] | None = None,
) -> str:
    """The whole system prompt for one model call."""
    memory_text = template("memory").safe_substitute(memory=memory).strip() + "\n" if memory else ""
    text = template("system").safe_substitute(
        instructions=instructions.strip(),
        memory=memory_text,
        tool_prompt=tool_prompt(toolkit, dialect).strip(),
        **(facts or workspace_facts(workspace)),
    )
    return text.strip() + "\n"
