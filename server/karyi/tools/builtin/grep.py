"""Searching file contents: `grep` (vecli), and the search behind the `karyi` profile's
`read` (see `read/batch.py`).

ripgrep is the engine (`workspace/ripgrep.py`); `.gitignore` hides files unless told
not to; file paths in results are relative to the workspace root (usable as they are in
the next call), and every cap is stated in the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from karyi.core.results import ToolResult
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class
from karyi.workspace.ripgrep import MAX_MATCHES, GrepMatch, GrepResult, grep

DIR_PATH = (
    "The absolute path to the directory to search within (relative paths are taken from "
    "the workspace root; default: the workspace root)"
)


@dataclass(frozen=True)
class TextHits:
    """The matches of one search, grouped by file as the model sees the file's path."""

    result: GrepResult
    files: dict[str, list[GrepMatch]]


def search_targets(ctx: ToolContext, raw: object) -> list[Path]:
    """Where a search or listing runs: the path given, or every workspace folder when
    none is (`.` too: with several folders the workspace is all of them)."""
    if raw in (None, "", ".", "./") and len(ctx.workspace.folders) > 1:
        return list(ctx.workspace.folders)
    return [ctx.workspace.resolve(str(raw or "."), param="path")]


async def search_text(
    ctx: ToolContext,
    target: Path | list[Path],
    pattern: str,
    *,
    include: str | None,
    case_sensitive: bool,
) -> TextHits:
    """The lines matching `pattern` in `target` (a file or a directory, or several), by
    file."""
    merged = GrepResult()
    files: dict[str, list[GrepMatch]] = {}
    for one in target if isinstance(target, list) else [target]:
        result = await grep(pattern, one, include=include, case_sensitive=case_sensitive)
        merged.matches += result.matches
        merged.capped = merged.capped or result.capped
        merged.warnings += result.warnings
        files.update(_by_shown_file(ctx, one, result).files)
    return TextHits(merged, files)


def _by_shown_file(ctx: ToolContext, target: Path, result: GrepResult) -> TextHits:
    base = target if target.is_dir() else target.parent
    files = {ctx.workspace.display(base / rel): ms for rel, ms in result.by_file().items()}
    return TextHits(result, files)


def search_roots(ctx: ToolContext, path: str | None) -> tuple[list[Path], str]:
    """The roots a call's `path` names (see `search_targets`) and how they are shown."""
    targets = search_targets(ctx, path)
    return targets, ", ".join(ctx.workspace.display(t) for t in targets)


@param_class
class GrepParams(ToolParams):
    """vecli `grep`'s parameters."""

    pattern: str = arg(
        min_length=1,
        description="The regular expression (regex) pattern to search for within "
        "file contents (e.g., 'function\\s+myFunction', "
        "'import\\s+\\{.*\\}\\s+from\\s+.*').",
    )
    path: str | None = arg(implied=None, description=DIR_PATH)
    include: str | None = arg(
        implied=None,
        description="A glob pattern to filter which files are searched (e.g., "
        "'*.js', '*.{ts,tsx}', 'src/**'). If omitted, searches all files (respecting "
        "potential ignores).",
    )
    case_sensitive: bool = arg(
        default=False, description="Match case exactly (default false: case-insensitive)"
    )


class Grep(TypedTool[GrepParams]):
    """vecli (Gemini CLI) `search_file_content`, named `grep` in that profile."""

    plan_safe = True

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
    example = {"pattern": "TODO", "path": "src", "include": "*.py"}

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """See `Tool.scans_tree`: a search."""
        return True

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        where = f" in {a.path}" if a.path else ""
        filt = f" ({a.include})" if a.include else ""
        return f"Search for '{a.pattern}'{where}{filt}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Gemini's `Found N matches for pattern "P" in path "D":` then `File:`/`L<n>:` blocks."""
        a = self.args(params)
        target, shown = search_roots(ctx, a.path)
        pattern = a.pattern
        include = a.include
        found = await search_text(
            ctx,
            target,
            pattern,
            include=include or None,
            case_sensitive=a.case_sensitive,
        )
        result = found.result
        where = f'in path "{shown}"' + (f' (filter: "{include}")' if include else "")
        if not result.matches:
            return ToolResult.ok(
                f'No matches found for pattern "{pattern}" {where}.',
                display="No matches found",
                data={"matches": [], "capped": False},
            )
        n = len(result.matches)
        term = "match" if n == 1 else "matches"
        lines = [f'Found {n} {term} for pattern "{pattern}" {where}:', "---"]
        matches: list[dict[str, Any]] = []
        for file_shown, group in found.files.items():
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
