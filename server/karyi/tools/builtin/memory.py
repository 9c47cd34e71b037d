"""Memory: facts appended to KARYI.md files that later system prompts include.

Two files: the user's (`<user config dir>/karyi/KARYI.md`, every workspace) and the
workspace's (`<root>/KARYI.md`, this project, shareable in git). `agent/prompting/rules.py` reads
them with the project rules (docs/context.md#rules). Facts go under a
`## Karyi Added Memories` heading, as Gemini CLI does with GEMINI.md, so hand-written
content in the same file is kept.
"""

from __future__ import annotations

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
HEADING = "## Karyi Added Memories"
MAX_FACT = 2000


def memory_paths(root: Path, env: Mapping[str, str] | None = None) -> dict[str, Path]:
    """The memory file of each scope."""
    return {
        "user": user_settings_path(env).parent / FILE_NAME,
        "workspace": root / FILE_NAME,
    }


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
