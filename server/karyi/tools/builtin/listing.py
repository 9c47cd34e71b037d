"""Listing the workspace: `glob` and `ls` (vecli, Gemini CLI's sentences), `list_file`
(agentxml), and the directory listing behind the `karyi` profile's `read`.

Entries hidden by `.gitignore` are left out unless told not to; every cap is stated.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.grep import DIR_PATH, search_roots
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class
from karyi.workspace.files import Entry, human_size, list_dir
from karyi.workspace.globs import Found, Matcher, recent_first, with_mtimes
from karyi.workspace.ripgrep import find_matching

MAX_GLOB_FILES = 1000
"""Files a glob result lists."""
MAX_GLOB_MATCHES = 20_000
"""Matching files a glob sorts by modification time; past this it stops looking."""


def list_entries(
    ctx: ToolContext, path: Path, shown: str, respect_git_ignore: bool = True
) -> tuple[list[Entry], int]:
    """A directory's entries, directories first, and how many `.gitignore` hides."""
    ignore = ctx.workspace.gitignore if respect_git_ignore else None
    return list_dir(path, shown, ignore=ignore)


def listing_lines(entries: list[Entry]) -> list[str]:
    """`name/` for directories, `name  (size)` for files."""
    return [f"{e.name}/" if e.is_dir else f"{e.name}  ({human_size(e.size)})" for e in entries]


@param_class
class GlobParams(ToolParams):
    """vecli `glob`'s parameters."""

    pattern: str = arg(
        min_length=1,
        description="The glob pattern to match against (e.g., '**/*.py', 'docs/*.md').",
    )
    path: str | None = arg(implied=None, description=DIR_PATH)
    case_sensitive: bool = arg(
        default=False,
        description="Whether the search should be case-sensitive. Defaults to false.",
    )
    respect_git_ignore: bool = arg(
        default=True,
        description="Whether to respect .gitignore patterns when finding files. Defaults to true.",
    )


@param_class
class LsParams(ToolParams):
    """vecli `ls`'s parameters."""

    path: str = arg(
        description="The absolute path to the directory to list (relative paths "
        "are taken from the workspace root)"
    )
    ignore: list[str] = arg(implied=[], description="List of glob patterns to ignore")
    respect_git_ignore: bool = arg(
        description="Whether to respect .gitignore patterns (default true)", default=True
    )


@param_class
class ListFileParams(ToolParams):
    """agentxml `list_file`'s parameters."""

    snake = False
    workspace_path: str = arg(
        description="directory path (default: the workspace root)", default="."
    )


class Glob(TypedTool[GlobParams]):
    """Gemini CLI `glob`: files matching a pattern, recently modified first."""

    plan_safe = True

    name = "glob"
    display_name = "FindFiles"
    description = (
        "Efficiently finds files matching specific glob patterns (e.g., `src/**/*.ts`, "
        "`**/*.md`), returning absolute paths sorted by modification time (newest first: "
        "files changed in the last 24 hours, then the rest alphabetically). `**` crosses "
        "directories; a pattern without it matches only at its own level. Respects "
        f".gitignore unless told not to; at most {MAX_GLOB_FILES} files are listed."
    )
    example = {"pattern": "src/**/*.ts"}

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """See `Tool.scans_tree`: a file search."""
        return True

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        where = f" within {a.path}" if a.path else ""
        return f"Find files matching '{a.pattern}'{where}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Gemini's `Found N file(s) matching "P" within D, sorted by modification time`."""
        a = self.args(params)
        roots, _shown = search_roots(ctx, a.path)
        every: list[Found] = []
        capped = False
        for root in roots:
            if not root.is_dir():
                message = f"path: {root} is not a directory"
                raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, message)
            some, more = await self._find(root, a, ctx)
            every += some
            capped = capped or more
        within = ", ".join(str(r) for r in roots)
        found = recent_first(every)
        if not found:
            return ToolResult.ok(
                f'No files found matching pattern "{a.pattern}" within {within}.',
                display="No files found",
                data={"files": []},
            )
        shown = found[:MAX_GLOB_FILES]
        count = f"more than {len(found)}" if capped else str(len(found))
        text = (
            f'Found {count} file(s) matching "{a.pattern}" within {within}, '
            "sorted by modification time (newest first):\n" + "\n".join(f.path for f in shown)
        )
        if capped:
            text += (
                f"\n(stopped looking after {MAX_GLOB_MATCHES} matching files, the first in path "
                f"order; only those were sorted and the first {MAX_GLOB_FILES} are listed: "
                "narrow the pattern to see the rest)"
            )
        elif len(found) > len(shown):
            text += (
                f"\n(listing capped at {MAX_GLOB_FILES} files; narrow the pattern to see the rest)"
            )
        return ToolResult.ok(
            text,
            display=f"Found {count} matching file(s)",
            data={
                "files": [f.path for f in shown],
                "total": len(found),
                "capped": capped,
            },
        )

    async def _find(self, root: Path, a: GlobParams, ctx: ToolContext) -> tuple[list[Found], bool]:
        """One root's matches (listing only where the pattern can match) and whether the
        listing stopped at its cap."""
        pattern = _relative_pattern(a.pattern, root)
        matcher = Matcher([pattern], case_sensitive=a.case_sensitive)
        ignore = ctx.workspace.gitignore if a.respect_git_ignore else None
        listing = await find_matching(root, matcher, ignore, limit=MAX_GLOB_MATCHES)
        return with_mtimes(root, listing.files), listing.capped


class Ls(TypedTool[LsParams]):
    """vecli (Gemini CLI) `list_directory`, named `ls` in that profile."""

    plan_safe = True

    name = "ls"
    display_name = "ReadFolder"
    description = (
        "Lists the names of files and subdirectories directly within a specified directory "
        "path. Can optionally ignore entries matching provided glob patterns."
    )
    example = {"path": "src"}

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """See `Tool.scans_tree`: a listing."""
        return True

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"List {self.args(params).path}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """`Directory listing for PATH:` then `[DIR] name` / `name` lines."""
        a = self.args(params)
        path = ctx.workspace.resolve(a.path)
        shown = str(path)
        entries, git_ignored = list_entries(ctx, path, a.path, a.respect_git_ignore)
        patterns = a.ignore
        kept = [e for e in entries if not any(fnmatch.fnmatch(e.name, p) for p in patterns)]
        if not kept:
            text = f"Directory {shown} is empty."
            if git_ignored:
                text += f"\n\n({git_ignored} git-ignored)"
            return ToolResult.ok(text, display="Directory is empty.", data={"entries": []})
        lines = [f"[DIR] {e.name}" if e.is_dir else e.name for e in kept]
        text = f"Directory listing for {shown}:\n" + "\n".join(lines)
        if git_ignored:
            text += f"\n\n({git_ignored} git-ignored)"
        display = f"Listed {len(kept)} item(s)." + (
            f" ({git_ignored} git-ignored)" if git_ignored else ""
        )
        data = {
            "entries": [{"name": e.name, "isDirectory": e.is_dir, "size": e.size} for e in kept]
        }
        return ToolResult.ok(text, display=display, data=data)


class ListFile(TypedTool[ListFileParams]):
    """agentxml `list_file(workspacePath)`."""

    plan_safe = True

    name = "list_file"
    display_name = "List files"
    description = "List the files and directories in a directory (one level)."
    example = {"workspacePath": "src"}

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """See `Tool.scans_tree`: a listing."""
        return True

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"List {self.args(params).workspace_path}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The listing as one string, directories first."""
        src = self.args(params).workspace_path
        path = ctx.workspace.resolve(src, param="workspacePath")
        entries, ignored = list_entries(ctx, path, src)
        lines = listing_lines(entries)
        if ignored:
            lines.append(f"({ignored} git-ignored entries not shown)")
        text = "\n".join(lines) if lines else "(empty directory)"
        return ToolResult.ok(text, data=text, display=f"Listed `{src}` ({len(entries)} entries)")


def _relative_pattern(pattern: str, root: Path) -> str:
    """Patterns are relative to the search directory; an absolute one must lie inside it."""
    if not pattern.startswith("/"):
        return pattern
    prefix = str(root).rstrip("/") + "/"
    if pattern.startswith(prefix):
        return pattern[len(prefix) :]
    raise ToolFailure(
        ErrorCode.FORBIDDEN_PATH,
        f"pattern: the absolute pattern {pattern!r} is not inside the search directory {root}",
    )
