"""vecli (Gemini CLI) `read_many_files`: many files in one result.

Each file appears after a `--- path ---` separator (Gemini CLI's format) and the
result ends with `--- End of content ---`. Paths are files, directories (everything
below them) or glob patterns, relative to the workspace root; `include` adds patterns,
`exclude` and the default excludes (dependencies, build output, binaries, `.env`)
remove files. Files are read with `window.read_file`, recorded as read. Caps:
2000 lines and 2000 characters per line per file, and the totals below; patterns stop
looking after `MAX_SELECTED` files; every cap and skipped file is stated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wcmatch import glob as wglob

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.read.window import read_file
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class
from karyi.workspace.files import DEFAULT_LINE_LIMIT
from karyi.workspace.globs import DEFAULT_EXCLUDES, Matcher
from karyi.workspace.ripgrep import find_files, find_matching

MAX_FILES = 200
MAX_TOTAL_CHARS = 400_000
MAX_SELECTED = 1000
"""Files patterns may select (in path order); past this the listing stops."""
TRUNCATED = (
    "[WARNING: This file was truncated. To view the full content, use the 'read_file' "
    "tool on this specific file.]"
)
END = "--- End of content ---"

_NONEMPTY = {"min_length": 1}


@param_class
class ReadManyFilesParams(ToolParams):
    """vecli `read_many_files`'s parameters."""

    paths: list[str] = arg(
        items=_NONEMPTY,
        min_items=1,
        description="Paths or glob patterns relative to the workspace root, e.g. "
        "['src/**/*.ts'] or ['README.md', 'docs/']",
    )
    include: list[str] = arg(
        implied=[],
        items=_NONEMPTY,
        description="Additional glob patterns to include, e.g. ['*.test.ts']",
    )
    exclude: list[str] = arg(
        implied=[],
        items=_NONEMPTY,
        description="Glob patterns of files to leave out, e.g. ['**/*.log']",
    )
    recursive: bool = arg(default=True, description="Read directories recursively (default true)")
    use_default_excludes: bool = arg(
        name="useDefaultExcludes",
        default=True,
        description="Apply the default excludes (node_modules, .git, build output, "
        "binaries, .env; default true)",
    )
    respect_git_ignore: bool = arg(
        default=True, description="Skip files .gitignore ignores (default true)"
    )


@dataclass
class _Selection:
    """Relative paths picked, and why others were left out."""

    files: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    capped: bool = False


class ReadManyFiles(TypedTool[ReadManyFilesParams]):
    """vecli (Gemini CLI) `read_many_files`."""

    plan_safe = True

    name = "read_many_files"
    display_name = "ReadManyFiles"
    description = (
        "Reads content from multiple files specified by paths or glob patterns within the "
        "workspace, concatenated with a '--- {path} ---' separator before each file. Use it "
        "to get an overview of a codebase, find where functionality lives, or review "
        "several files at once. Paths may be files, directories (read recursively) or glob "
        "patterns such as 'src/**/*.ts'. Binary files, dependencies, build output and .env "
        f"files are skipped by default. At most {MAX_FILES} files and {MAX_TOTAL_CHARS} "
        f"characters in all; each file at most {DEFAULT_LINE_LIMIT} lines."
    )
    example = {"paths": ["src/**/*.py", "README.md"]}

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """See `Tool.scans_tree`: files found by patterns."""
        return True

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return "Read " + ", ".join(self.args(params).paths)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Every selected file after its separator, then `--- End of content ---`."""
        selection = await self._select(params, ctx)
        parts: list[str] = []
        read: list[str] = []
        total = 0
        for rel in selection.files:
            if len(read) >= MAX_FILES or total >= MAX_TOTAL_CHARS:
                selection.skipped.append((rel, "output limit reached"))
                continue
            try:
                path = ctx.workspace.resolve(rel, param="paths")
                read_one = read_file(ctx, path, rel)
            except ToolFailure as exc:
                reason = "binary file" if exc.code == ErrorCode.BINARY_FILE else exc.message
                selection.skipped.append((rel, reason))
                continue
            w = read_one.window()
            body = w.text
            if w.truncated or w.shortened_lines or read_one.snap.truncated:
                body = f"{TRUNCATED}\n{body}"
            parts.append(f"--- {rel} ---\n\n{body}\n\n")
            read.append(rel)
            total += len(body)
        return self._result(parts, read, selection.skipped, selection.capped)

    def _result(
        self, parts: list[str], read: list[str], skipped: list[tuple[str, str]], capped: bool
    ) -> ToolResult:
        notes = ""
        if capped:
            notes = (
                f"\nThe patterns match more than {MAX_SELECTED} files; only the first "
                f"{MAX_SELECTED} in path order were considered: narrow them to see the rest."
            )
        if skipped:
            shown = "; ".join(f"{p} ({why})" for p, why in skipped[:20])
            more = f"; and {len(skipped) - 20} more" if len(skipped) > 20 else ""
            notes += f"\nSkipped {len(skipped)} file(s): {shown}{more}"
        data = {
            "files": read,
            "skipped": [{"path": p, "reason": w} for p, w in skipped],
            "capped": capped,
        }
        if not read:
            text = "No files matching the criteria were found or all were skipped." + notes
            return ToolResult.ok(text, display="No files read", data=data)
        text = "".join(parts) + END + notes
        display = f"Read {len(read)} file(s)" + (f", skipped {len(skipped)}" if skipped else "")
        return ToolResult.ok(text, display=display, data=data)

    async def _select(self, params: Mapping[str, Any], ctx: ToolContext) -> _Selection:
        a = self.args(params)
        root = ctx.workspace.root
        recursive = a.recursive
        explicit: list[str] = []
        patterns: list[str] = []
        for raw in [*a.paths, *a.include]:
            if wglob.is_magic(raw, flags=wglob.BRACE | wglob.GLOBSTAR):
                patterns.append(_inside(raw, str(root)))
                continue
            path = ctx.workspace.resolve(raw, param="paths")
            rel = ctx.workspace.display(path)
            if path.is_dir():
                patterns.append(("" if rel == "." else rel + "/") + ("**" if recursive else "*"))
            elif path.exists():
                explicit.append(rel)
            else:
                raise ToolFailure(ErrorCode.NOT_FOUND, f"paths: {raw}: no such file or directory")
        excludes: Sequence[str] = list(a.exclude)
        if a.use_default_excludes:
            excludes = [*excludes, *DEFAULT_EXCLUDES]
        matcher = Matcher(patterns, excludes)
        picked: dict[str, None] = {}
        skipped: list[tuple[str, str]] = []
        for rel in explicit:
            if matcher.excluded(rel):
                skipped.append((rel, "excluded"))
            else:
                picked[rel] = None
        capped = False
        respect = a.respect_git_ignore
        folders = ctx.workspace.folders
        if patterns and len(folders) == 1:
            ignore = ctx.workspace.gitignore if respect else None
            listing = await find_matching(root, matcher, ignore, limit=MAX_SELECTED)
            picked.update(dict.fromkeys(listing.files))
            capped = listing.capped
        elif patterns:  # several folders: files are named `folder/path`
            for folder in folders:
                listing = await find_files(
                    folder,
                    respect_git_ignore=respect,
                    keep=_named(ctx, folder, matcher),
                    limit=MAX_SELECTED,
                )
                picked.update(
                    dict.fromkeys(ctx.workspace.display(folder / r) for r in listing.files)
                )
                capped = capped or listing.capped
        return _Selection(sorted(picked), skipped, capped)


def _named(ctx: ToolContext, folder: Path, matcher: Matcher) -> Callable[[str], bool]:
    """`matcher` over a folder's files as the model names them (`folder/path`)."""
    return lambda rel: matcher(ctx.workspace.display(folder / rel))


def _inside(pattern: str, root: str) -> str:
    """A glob pattern relative to the workspace root that never climbs out of it."""
    clean = pattern[2:] if pattern.startswith("./") else pattern
    if clean.startswith(root.rstrip("/") + "/"):
        clean = clean[len(root.rstrip("/")) + 1 :]
    if clean.startswith("/") or ".." in clean.split("/"):
        raise ToolFailure(
            ErrorCode.FORBIDDEN_PATH,
            f"paths: the pattern {pattern!r} must stay inside the workspace {root} "
            "(relative to it, without '..')",
        )
    return clean
