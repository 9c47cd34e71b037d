"""karyi `<read>`: files, directory listings and searches in one call.

A face over the shared implementations: files are read with `window.read_file`
(through the document store, recorded as read), directories listed and
`<search pattern="re" path="src"/>` answered (by ripgrep) with `search.list_entries`
and `search.search_text`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ToolFailure
from karyi.core.results import ToolResult
from karyi.protocol.xmltext import start_tag
from karyi.tools.builtin.document_io import file_keys
from karyi.tools.builtin.grep import search_targets, search_text
from karyi.tools.builtin.listing import list_entries, listing_lines
from karyi.tools.builtin.read.window import read_file
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class
from karyi.workspace.files import DEFAULT_LINE_LIMIT, human_size
from karyi.workspace.ripgrep import MAX_MATCHES


@param_class
class FileItem(ToolParams):
    """A file to read (or a directory to list)."""

    src: str = arg(description="file or directory path")
    offset: int = arg(implied=1, minimum=1, description="first line to show (1-based)")
    limit: int = arg(implied=DEFAULT_LINE_LIMIT, minimum=1, description="how many lines to show")


@param_class
class SearchItem(ToolParams):
    """A search of file contents."""

    pattern: str = arg(min_length=1, description="regular expression")
    path: str = arg(implied=".", description="file or directory to search (default .)")
    include: str | None = arg(implied=None, description="glob of files to search, e.g. *.py")
    case_sensitive: bool = arg(implied=False, description="match case (default false)")


@param_class
class ReadParams(ToolParams):
    """karyi `read`'s parameters."""

    files: list[FileItem] = arg(implied=[], min_items=1)
    searches: list[SearchItem] = arg(implied=[], min_items=1)


class ReadTool(TypedTool[ReadParams]):
    """Reads files, lists directories and searches; several of each in one call."""

    plan_safe = True

    name = "read"
    display_name = "Read"
    description = (
        "Read files, or list a directory when src is a directory. Shows up to "
        f"{DEFAULT_LINE_LIMIT} lines per file; use offset/limit (1-based lines) for more. "
        "A search element finds the lines matching a regular expression (ripgrep syntax, "
        f"case-insensitive unless case_sensitive is true; at most {MAX_MATCHES} matches)."
    )
    example = {"files": [{"src": "package.json"}, {"src": "src/"}]}

    def check(self, params: Mapping[str, Any]) -> str | None:
        """At least one file or search."""
        a = self.args(params)
        if not a.files and not a.searches:
            return "give at least one file (src) or search (pattern)"
        return None

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The files read: a read waits for an earlier call in the reply that edits them."""
        return file_keys(ctx.workspace.resolve(f.src, param="src") for f in self.args(params).files)

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        """See `Tool.scans_tree`: a search, or a directory listed."""
        a = self.args(params)
        if a.searches:
            return True
        return any(ctx.workspace.resolve(f.src, param="src").is_dir() for f in a.files)

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        parts = [f.src for f in a.files]
        parts += [f"search {s.pattern!r}" for s in a.searches]
        return "Read " + ", ".join(parts)

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Each file, directory or search in its own section; a failing one hides nothing."""
        sections: list[str] = []
        failures: list[tuple[str, str]] = []
        a = self.args(params)
        items: list[FileItem | SearchItem] = [*a.files, *a.searches]
        for item in items:
            kind = "file" if isinstance(item, FileItem) else "search"
            try:
                if isinstance(item, FileItem):
                    sections.append(self._one(item, ctx))
                else:
                    sections.append(await self._search(item, ctx))
            except ToolFailure as exc:
                failures.append((exc.code, exc.message))
                key = ("src", item.src) if isinstance(item, FileItem) else ("pattern", item.pattern)
                attrs = {key[0]: key[1], "error": exc.code}
                sections.append(start_tag(kind, attrs) + exc.message + f"</{kind}>")
        text = "\n".join(sections)
        display = f"Read {len(items) - len(failures)} of {len(items)} item(s)"
        if failures:
            code, message = failures[0]
            return ToolResult.fail(code, message, llm_content=text, display=display)
        return ToolResult.ok(text, display=display)

    def _one(self, item: FileItem, ctx: ToolContext) -> str:
        src = item.src
        path = ctx.workspace.resolve(src, param="src")
        if path.is_dir():
            entries, ignored = list_entries(ctx, path, src)
            lines = listing_lines(entries)
            if ignored:
                lines.append(f"({ignored} git-ignored entries not shown)")
            attrs = {"src": src, "entries": str(len(entries))}
            return start_tag("dir", attrs) + "\n" + "\n".join(lines) + "\n</dir>"
        read = read_file(ctx, path, src)
        snap = read.snap
        w = read.window(item.offset - 1, item.limit)
        attrs = {"src": src, "lines": f"{w.first_line}-{w.last_line}", "total": str(w.total_lines)}
        if snap.source == "buffer":
            attrs["unsaved"] = "true"
        notes: list[str] = []
        if w.truncated:
            notes.append(
                f"[showing lines {w.first_line}-{w.last_line} of {w.total_lines}; "
                f'read more with <file src="{src}" offset="{w.last_line + 1}"/>]'
                if w.last_line < w.total_lines
                else f"[showing lines {w.first_line}-{w.last_line} of {w.total_lines}]"
            )
        if w.shortened_lines:
            notes.append(f"[{w.shortened_lines} long line(s) were cut at 2000 characters]")
        if w.lossy:
            notes.append("[the file is not valid UTF-8; undecodable bytes are shown as \ufffd]")
        if snap.truncated:
            notes.append(f"[only the first {human_size(len(snap.text))} of the file were read]")
        body = w.text if w.text.endswith("\n") or not w.text else w.text + "\n"
        tail = "\n".join(notes) + "\n" if notes else ""
        return start_tag("file", attrs) + "\n" + body + tail + "</file>"

    async def _search(self, item: SearchItem, ctx: ToolContext) -> str:
        raw = item.path
        target = search_targets(ctx, raw)
        found = await search_text(
            ctx,
            target,
            item.pattern,
            include=item.include,
            case_sensitive=item.case_sensitive,
        )
        result = found.result
        attrs = {"pattern": item.pattern, "path": raw}
        if item.include:
            attrs["include"] = item.include
        attrs["matches"] = str(len(result.matches)) + ("+" if result.capped else "")
        lines: list[str] = []
        for file_shown, matches in found.files.items():
            lines.append(file_shown)
            lines += [f"  {m.line}: {m.text}" for m in matches]
        if not lines:
            lines.append("(no matches)")
        if result.capped:
            lines.append(
                f"[stopped at {MAX_MATCHES} matches; narrow the pattern, path or include to "
                "see the rest]"
            )
        return start_tag("search", attrs) + "\n" + "\n".join(lines) + "\n</search>"
