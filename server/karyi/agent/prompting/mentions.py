"""Mentions beyond files: `@problems`, `@terminal`, `@diff`, `@folder:PATH`, `@url:URL`.

A message may name context instead of pasting it (docs/context.md#mentions); each
mention becomes a block after the message, fetched when the turn starts, in every
front end alike. Every block is cut to `MAX_BLOCK` characters and redacted like a
tool result before the model sees it.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from karyi.agent.diagnostics.problems import ProblemSource, render_all
from karyi.core.errors import ToolFailure
from karyi.tools.context import ToolContext

MAX_BLOCK = 20_000
MAX_PROBLEM_FILES = 300
MENTION = re.compile(
    r"(?<![\w@])@(?:(problems|terminal|diff)\b|folder:(\S+)|url:(\S+)|(https?://\S+))"
)


@dataclass(frozen=True)
class Mention:
    """One mention in a message: its kind and argument, as written."""

    kind: str
    arg: str
    written: str


# A repository's config may name programs for git to run (fsmonitor, hooks, textconv
# filters): none of them run here.
_SAFE_GIT = [
    "git",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
]


def find_mentions(text: str) -> list[Mention]:
    """The mentions of `text`, each once, in order."""
    out: dict[str, Mention] = {}
    for m in MENTION.finditer(text):
        word, folder, _url, _bare = m.groups()
        written = m.group(0).rstrip(".,;:)!?'\"")
        if word:
            mention = Mention(word, "", written)
        elif folder:
            mention = Mention("folder", written.removeprefix("@folder:"), written)
        else:
            mention = Mention("url", written.removeprefix("@").removeprefix("url:"), written)
        out.setdefault(f"{mention.kind}:{mention.arg}", mention)
    return list(out.values())


@dataclass
class MentionSources:
    """What the blocks are made from: the call context, the problems, the terminal."""

    ctx: ToolContext
    problems: ProblemSource | None
    last_command: Callable[[], str]


async def expand(text: str, sources: MentionSources) -> str:
    """The blocks for the mentions of `text` (empty when there are none)."""
    blocks = []
    for mention in find_mentions(text):
        try:
            body = await _BUILDERS[mention.kind](mention, sources)
        except ToolFailure as exc:
            body = f"(unavailable: {exc.message})"
        except Exception as exc:  # a mention that fails must not stop the turn
            body = f"(unavailable: {type(exc).__name__}: {exc})"
        if len(body) > MAX_BLOCK:
            body = body[:MAX_BLOCK] + f"\n[cut at {MAX_BLOCK} characters]"
        blocks.append(f'<mention name="{mention.written}">\n{body.rstrip()}\n</mention>')
    text = "\n\n".join(blocks)
    secrets = sources.ctx.secrets
    return secrets.redactor.redact(text) if secrets is not None and text else text


async def _problems(_m: Mention, s: MentionSources) -> str:
    if s.problems is None:
        return "(no diagnostics source: diagnostics.source is off)"
    from karyi.workspace.ripgrep import list_files  # with the first @problems

    files: list[Path] = []
    for folder in s.ctx.workspace.folders:
        rels = await list_files(folder)
        files += [folder / r for r in rels if s.problems.covers(folder / r)]
    found = await asyncio.wait_for(
        s.problems.everywhere(files[:MAX_PROBLEM_FILES]),
        s.ctx.settings.diagnostics.wait_seconds * 2,
    )
    text = render_all(found, s.ctx.workspace.display)
    return text or f"No errors or warnings ({s.problems.name})."


async def _terminal(_m: Mention, s: MentionSources) -> str:
    return s.last_command() or "(no command has run in this session yet)"


async def _diff(_m: Mention, s: MentionSources) -> str:
    parts = []
    for folder in s.ctx.workspace.folders:
        diff = await asyncio.to_thread(_git_diff, folder)
        name = s.ctx.workspace.display(folder)
        if len(s.ctx.workspace.folders) > 1:
            parts.append(f"# {name}\n{diff or '(no uncommitted changes)'}")
        else:
            parts.append(diff or "(no uncommitted changes)")
    return "\n\n".join(parts)


def _git_diff(folder: Path) -> str:
    """`git diff HEAD` (staged and unstaged), or why there is none."""
    try:
        proc = subprocess.run(
            [
                *_SAFE_GIT,
                "-C",
                str(folder),
                "diff",
                "HEAD",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
            ],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"(git diff failed: {exc})"
    if proc.returncode != 0:
        return f"(not a git repository, or no commit yet: {proc.stderr.strip()})"
    return proc.stdout


async def _folder(m: Mention, s: MentionSources) -> str:
    from karyi.workspace.ripgrep import list_files  # with the first @folder

    folder = s.ctx.workspace.resolve(m.arg, param="@folder")
    rels = await list_files(folder)
    shown = s.ctx.workspace.display(folder)
    lines = [f"{shown}/{r}" if shown != "." else r for r in sorted(rels)[:300]]
    more = f"\n… and {len(rels) - 300} more files" if len(rels) > 300 else ""
    return f"Files in {shown} ({len(rels)}):\n" + "\n".join(lines) + more


async def _url(m: Mention, s: MentionSources) -> str:
    from karyi.tools.builtin.web_fetch import fetch_page, render_page  # the web client

    fetched, page = await fetch_page(m.arg, s.ctx)
    text, _facts = render_page(fetched, page, min(MAX_BLOCK, s.ctx.settings.web.max_chars))
    return text


_BUILDERS: dict[str, Callable[[Mention, MentionSources], Awaitable[str]]] = {
    "problems": _problems,
    "terminal": _terminal,
    "diff": _diff,
    "folder": _folder,
    "url": _url,
}
