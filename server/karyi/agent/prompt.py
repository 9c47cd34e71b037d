"""The system prompt: agent instructions, workspace facts, memory, tool instructions.

Prompt text lives in `prompts/*.md` templates; this module only fills them in. The
prompt is rebuilt for every model call, so a fact saved to memory mid-turn is seen.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
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


LARGE_INDEX = 20_000
"""Tracked files past which the facts name the branch only: `git status` stats every
tracked file, every turn (0.3-0.6 s for 110,000; docs/architecture.md#large-workspaces)."""


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


def _tracked(root: Path) -> int | None:
    """How many files git's index holds (its header says), None if there is none."""
    proc = _git(root, "rev-parse", "--git-path", "index")
    if proc is None or proc.returncode != 0:
        return None
    index = root / proc.stdout.strip()
    try:
        with open(index, "rb") as fh:
            head = fh.read(12)
    except OSError:
        return None
    if len(head) < 12 or head[:4] != b"DIRC":
        return None
    return int.from_bytes(head[8:12], "big")


def _git_facts(root: Path) -> str:
    tracked = _tracked(root)
    if tracked is not None and tracked > LARGE_INDEX:
        proc = _git(root, "symbolic-ref", "--short", "-q", "HEAD")
        if proc is None or proc.returncode != 0:
            proc = _git(root, "rev-parse", "--short", "HEAD")
        branch = proc.stdout.strip() if proc is not None and proc.returncode == 0 else "?"
        return (
            f"- Git: branch {branch}; changed files not counted ({tracked:,} tracked files; "
            "run `git status`)\n"
        )
    proc = _git(root, "status", "--porcelain=v1", "--branch")
    if proc is None:
        return ""
    if proc.returncode != 0:
        return "- Git: not a git repository\n"
    lines = proc.stdout.splitlines()
    branch = lines[0].removeprefix("## ") if lines else "?"
    changed = len(lines) - 1
    return f"- Git: branch {branch}; {changed} changed file(s)\n"


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
