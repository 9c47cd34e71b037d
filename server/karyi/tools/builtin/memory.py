"""Memory: facts appended to KARYI.md files that later system prompts include.

Two files: the user's (`<user config dir>/karyi/KARYI.md`, every workspace) and the
workspace's (`<root>/KARYI.md`, this project, shareable in git). `agent/prompting/rules.py` reads
them with the project rules (docs/context.md#rules). Facts go under a
`## Karyi Added Memories` heading, as Gemini CLI does with GEMINI.md, so hand-written
content in the same file is kept.

With settings `memory.auto` on, the agent also keeps notes of its own with `remember`,
in `<user config dir>/karyi/workspaces/<digest>/MEMORY.md` (the user's, never the
repository's), loaded into the prompt within `memory.maxChars`
(docs/extensions.md#memory).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from karyi.core.atomic import write_atomic
from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.settings import user_settings_path
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class

FILE_NAME = "KARYI.md"
AUTO_FILE = "MEMORY.md"
HEADING = "## Karyi Added Memories"
MAX_FACT = 2000


def memory_paths(root: Path, env: Mapping[str, str] | None = None) -> dict[str, Path]:
    """The memory file of each scope."""
    return {
        "user": user_settings_path(env).parent / FILE_NAME,
        "workspace": root / FILE_NAME,
    }


def auto_memory_path(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """The workspace's auto-memory file, in the user's config dir (beside the
    workspace's remembered permissions, agent/review/permissions.py)."""
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:16]
    return user_settings_path(env).parent / "workspaces" / digest / AUTO_FILE


def _write(path: Path, text: str) -> None:
    # A new memory file is private; one the user made keeps the mode they gave it.
    write_atomic(path, text.encode(), display=str(path), make_parents=True, new_mode=0o600)


def append_fact(path: Path, fact: str) -> None:
    """Add `- fact` under the memories heading, creating file and heading as needed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    line = f"- {fact}"
    if HEADING in text:
        head, _, tail = text.partition(HEADING)
        body, sep, rest = tail.partition("\n## ")
        body = body.rstrip("\n") + f"\n{line}\n"
        text = head + HEADING + body + (("\n## " + rest) if sep else "")
    else:
        text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + f"{HEADING}\n{line}\n"
    _write(path, text)


@param_class
class SaveMemoryParams(ToolParams):
    """`save_memory`'s parameters."""

    fact: str = arg(
        min_length=1,
        max_length=MAX_FACT,
        description="The fact to remember: a clear, self-contained statement",
    )
    scope: Literal["workspace", "user"] = arg(
        default="workspace",
        description="workspace: this project's KARYI.md; user: every project",
    )


class SaveMemory(TypedTool[SaveMemoryParams]):
    """Gemini CLI's `save_memory(fact)`, with a scope."""

    name = "save_memory"
    display_name = "Save Memory"
    description = (
        "Saves a specific piece of information or fact to your long-term memory, so it is "
        "included in future sessions. Use it when the user asks you to remember something, "
        "or states a clear, concise fact that will help later (a preference, a convention)."
    )

    def check(self, params: Mapping[str, Any]) -> str | None:
        """A fact is one line of text."""
        fact = self.args(params).fact.strip()
        if not fact:
            return "fact: expected a non-empty statement"
        if "\n" in fact:
            return "fact: expected one line (save several facts with several calls)"
        return None

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Remember: {self.args(params).fact}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Append the fact to the scope's KARYI.md."""
        a = self.args(params)
        scope = a.scope
        path = memory_paths(ctx.workspace.root)[scope]
        fact = a.fact.strip()
        try:
            append_fact(path, fact)
        except OSError as exc:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR, f"cannot write {path}: {exc.strerror}"
            ) from None
        return ToolResult.ok(
            f'Okay, I\'ve remembered that: "{fact}"',
            display=f"Saved to {scope} memory ({path})",
            data={"path": str(path), "scope": scope},
        )


@param_class
class RememberParams(ToolParams):
    """`remember`'s parameters."""

    note: str = arg(
        min_length=1,
        max_length=MAX_FACT,
        description="What to remember for later sessions in this workspace: one clear line",
    )


class Remember(TypedTool[RememberParams]):
    """Auto memory: a note the agent keeps for itself (settings `memory.auto`)."""

    name = "remember"
    display_name = "Remember"
    description = (
        "Keep a note for your future sessions in this workspace: something you learned that "
        "will save time later (a build step, a convention, where a thing lives, a user "
        "preference). One line per call; your notes are loaded at the start of each session."
    )

    def check(self, params: Mapping[str, Any]) -> str | None:
        """A note is one line of text."""
        note = self.args(params).note.strip()
        if not note or "\n" in note:
            return "note: expected one non-empty line (remember several notes with several calls)"
        return None

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Remember: {self.args(params).note}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Append the note, with any secret value in it replaced by its name."""
        if not ctx.settings.memory.auto:
            raise ToolFailure(ErrorCode.PERMISSION_DENIED, "auto memory is off (memory.auto)")
        note = self.args(params).note.strip()
        if ctx.secrets is not None:
            note = ctx.secrets.redactor.redact(note)
        path = auto_memory_path(ctx.workspace.root)
        try:
            append_fact(path, note)
        except OSError as exc:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR, f"cannot write {path}: {exc.strerror}"
            ) from None
        return ToolResult.ok(
            f"Noted: {note}", display=f"Remembered ({path})", data={"path": str(path), "note": note}
        )
