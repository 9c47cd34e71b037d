"""Seed 003's (Gemini-CLI-compatible) `grep` and `glob`.

Parameters and sentences follow Gemini CLI. ripgrep is the engine of both; file paths
in results are relative to the workspace root (usable as they are in the next call),
and every cap is stated in the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext
from karyi.workspace.globs import Matcher, recent_first, with_mtimes
from karyi.workspace.search import MAX_MATCHES, grep, list_files

MAX_GLOB_FILES = 1000
DIR_PATH = (
    "The absolute path to the directory to search within (relative paths are taken from "
    "the workspace root; default: the workspace root)"
)


def _search_root(ctx: ToolContext, params: Mapping[str, Any]) -> tuple[Path, str]:
    raw = params.get("path") or "."
    path = ctx.workspace.resolve(str(raw), param="path")
    return path, ctx.workspace.display(path)


class Grep(Tool):
    """Gemini CLI `search_file_content`, named `grep` as in seed 003."""

    name = "grep"
    display_name = "SearchText"
    description = (
        "Searches for a regular expression pattern within the content of files in a "
        "specified directory (or the workspace root). Can filter files by a glob pattern. "
        "Returns the lines containing matches, with their file paths and line numbers, "
        f"grouped by file. Case-insensitive unless case_sensitive is true; at most "
        f"{MAX_MATCHES} matches are shown. The regex syntax is ripgrep's (Rust regex: no "
        "look-around or backreferences)."
    )
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": "The regular expression (regex) pattern to search for within "
                "file contents (e.g., 'function\\s+myFunction', "
                "'import\\s+\\{.*\\}\\s+from\\s+.*').",
            },
            "path": {"type": "string", "description": DIR_PATH},
            "include": {
                "type": "string",
                "description": "A glob pattern to filter which files are searched (e.g., "
                "'*.js', '*.{ts,tsx}', 'src/**'). If omitted, searches all files (respecting "
                "potential ignores).",
            },
            "case_sensitive": {
                "type": "boolean",
                "default": False,
                "description": "Match case exactly (default false: case-insensitive)",
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    example = {"pattern": "TODO", "path": "src", "include": "*.py"}

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """See `Tool.scans_tree`: a search."""
        return True

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        where = f" in {params['path']}" if params.get("path") else ""
        filt = f" ({params['include']})" if params.get("include") else ""
        return f"Search for '{params.get('pattern')}'{where}{filt}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Gemini's `Found N matches for pattern "P" in path "D":` then `File:`/`L<n>:` blocks."""
        target, shown = _search_root(ctx, params)
        pattern = str(params["pattern"])
        include = params.get("include")
        result = await grep(
            pattern,
            target,
            include=str(include) if include else None,
            case_sensitive=bool(params.get("case_sensitive", False)),
        )
        where = f'in path "{shown}"' + (f' (filter: "{include}")' if include else "")
        if not result.matches:
            return ToolResult.ok(
                f'No matches found for pattern "{pattern}" {where}.',
                display="No matches found",
                data={"matches": [], "capped": False},
            )
        base = target if target.is_dir() else target.parent
        n = len(result.matches)
        term = "match" if n == 1 else "matches"
        lines = [f'Found {n} {term} for pattern "{pattern}" {where}:', "---"]
        matches: list[dict[str, Any]] = []
        for rel, group in result.by_file().items():
            file_shown = ctx.workspace.display(base / rel)
            lines.append(f"File: {file_shown}")
            for m in group:
                lines.append(f"L{m.line}: {m.text}")
                matches.append({"file": file_shown, "line": m.line, "text": m.text})
            lines.append("---")
        if result.capped:
            lines.append(
                f"(results capped at {MAX_MATCHES} matches; more exist: narrow the pattern, "
                "path or include to see them)"
            )
        return ToolResult.ok(
            "\n".join(lines),
            display=f"Found {n}{'+' if result.capped else ''} {term}",
            data={"matches": matches, "capped": result.capped},
        )


class Glob(Tool):
    """Gemini CLI `glob`: files matching a pattern, recently modified first."""

    name = "glob"
    display_name = "FindFiles"
    description = (
        "Efficiently finds files matching specific glob patterns (e.g., `src/**/*.ts`, "
        "`**/*.md`), returning absolute paths sorted by modification time (newest first: "
        "files changed in the last 24 hours, then the rest alphabetically). `**` crosses "
        "directories; a pattern without it matches only at its own level. Respects "
        f".gitignore unless told not to; at most {MAX_GLOB_FILES} files are listed."
    )
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": "The glob pattern to match against (e.g., '**/*.py', 'docs/*.md').",
            },
            "path": {"type": "string", "description": DIR_PATH},
            "case_sensitive": {
                "type": "boolean",
                "default": False,
                "description": "Whether the search should be case-sensitive. Defaults to false.",
            },
            "respect_git_ignore": {
                "type": "boolean",
                "default": True,
                "description": "Whether to respect .gitignore patterns when finding files. "
                "Defaults to true.",
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    example = {"pattern": "src/**/*.ts"}

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """See `Tool.scans_tree`: a file search."""
        return True

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        where = f" within {params['path']}" if params.get("path") else ""
        return f"Find files matching '{params.get('pattern')}'{where}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Gemini's `Found N file(s) matching "P" within D, sorted by modification time`."""
        root, _shown = _search_root(ctx, params)
        if not root.is_dir():
            raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, f"path: {root} is not a directory")
        pattern = _relative_pattern(str(params["pattern"]), root)
        matcher = Matcher([pattern], case_sensitive=bool(params.get("case_sensitive", False)))
        rels = await list_files(
            root, respect_git_ignore=bool(params.get("respect_git_ignore", True))
        )
        found = recent_first(with_mtimes(root, [r for r in rels if matcher(r)]))
        if not found:
            return ToolResult.ok(
                f'No files found matching pattern "{params["pattern"]}" within {root}.',
                display="No files found",
                data={"files": []},
            )
        shown = found[:MAX_GLOB_FILES]
        text = (
            f'Found {len(found)} file(s) matching "{params["pattern"]}" within {root}, '
            "sorted by modification time (newest first):\n" + "\n".join(str(f.path) for f in shown)
        )
        if len(found) > len(shown):
            text += (
                f"\n(listing capped at {MAX_GLOB_FILES} files; narrow the pattern to see the rest)"
            )
        return ToolResult.ok(
            text,
            display=f"Found {len(found)} matching file(s)",
            data={"files": [str(f.path) for f in shown], "total": len(found)},
        )


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
