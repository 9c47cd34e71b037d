"""grep, glob, read_many_files (vecli) and <read><search/> (karyi), over a real tree."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry, default_toolkit
from karyi.workspace import search
from karyi.workspace.globs import Found, Matcher, recent_first

REG = builtin_registry()


async def call(ref: str, params: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return await REG.find(ref).run(params, ctx)


@pytest.fixture
def tree(ws_root: Path) -> Path:
    (ws_root / "src" / "util.py").write_text("# TODO: tidy\ndef helper():\n    return 1\n")
    (ws_root / "src" / "app.ts").write_text("// todo later\nexport const x = 1;\n")
    (ws_root / ".hidden.py").write_text("TODO hidden\n")
    (ws_root / "node_modules" / "pkg").mkdir(parents=True)
    (ws_root / "node_modules" / "pkg" / "i.js").write_text("TODO vendored\n")
    (ws_root / "build" / "gen.py").write_text("TODO generated\n")  # git-ignored
    (ws_root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(50))
    return ws_root


def test_default_coding_toolkit_has_the_search_tools() -> None:
    kit = default_toolkit(REG, "karyi")
    assert {"grep", "glob", "read_many_files"} <= set(kit.names())


# -- grep -------------------------------------------------------------------------------------


async def test_grep_groups_by_file_with_line_numbers(ctx: ToolContext, tree: Path) -> None:
    r = await call("vecli.grep", {"pattern": "todo"}, ctx)
    assert r.llm_content == (
        'Found 3 matches for pattern "todo" in path ".":\n'
        "---\nFile: .hidden.py\nL1: TODO hidden\n"
        "---\nFile: src/app.ts\nL1: // todo later\n"
        "---\nFile: src/util.py\nL1: # TODO: tidy\n---"
    )
    assert r.data["matches"][0] == {"file": ".hidden.py", "line": 1, "text": "TODO hidden"}


async def test_grep_case_path_and_include(ctx: ToolContext, tree: Path) -> None:
    r = await call(
        "vecli.grep",
        {"pattern": "TODO", "path": "src", "include": "*.py", "case_sensitive": True},
        ctx,
    )
    assert r.llm_content == (
        'Found 1 match for pattern "TODO" in path "src" (filter: "*.py"):\n'
        "---\nFile: src/util.py\nL1: # TODO: tidy\n---"
    )
    r = await call("vecli.grep", {"pattern": "nothing-here"}, ctx)
    assert r.success and r.llm_content == 'No matches found for pattern "nothing-here" in path ".".'


async def test_grep_states_its_cap(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "many.txt").write_text("hit\n" * (search.MAX_MATCHES + 50))
    r = await call("vecli.grep", {"pattern": "hit"}, ctx)
    assert r.data["capped"] and len(r.data["matches"]) == search.MAX_MATCHES
    assert r.llm_content.endswith(
        f"(results capped at {search.MAX_MATCHES} matches; more exist: narrow the pattern, "
        "path or include to see them)"
    )


async def test_grep_invalid_regex_is_a_precise_error(ctx: ToolContext) -> None:
    r = await call("vecli.grep", {"pattern": "a("}, ctx)
    assert r.error is not None and r.error.code == ErrorCode.INVALID_TOOL_INPUT
    assert r.error.message.startswith("pattern: 'a(' is not a valid regular expression (")


async def test_grep_outside_the_workspace_is_forbidden(ctx: ToolContext) -> None:
    r = await call("vecli.grep", {"pattern": "x", "path": "/etc"}, ctx)
    assert r.error is not None and r.error.code == ErrorCode.FORBIDDEN_PATH


async def test_karyi_read_search(ctx: ToolContext, tree: Path) -> None:
    r = await call(
        "karyi.read", {"searches": [{"pattern": "def \\w+", "path": "src", "include": "*.py"}]}, ctx
    )
    assert r.llm_content == (
        '<search pattern="def \\w+" path="src" include="*.py" matches="1">\n'
        "src/util.py\n  2: def helper():\n</search>"
    )
    r = await call("karyi.read", {"searches": [{"pattern": "zzz"}]}, ctx)
    assert r.llm_content == '<search pattern="zzz" path="." matches="0">\n(no matches)\n</search>'


async def test_karyi_read_needs_files_or_searches(ctx: ToolContext) -> None:
    r = await call("karyi.read", {}, ctx)
    assert r.error is not None and r.error.code == ErrorCode.INVALID_TOOL_INPUT


# -- glob -------------------------------------------------------------------------------------


async def test_glob_recent_first_then_alphabetical(ctx: ToolContext, tree: Path) -> None:
    old = time.time() - 3 * 24 * 3600
    os.utime(tree / "src" / "main.py", (old, old))
    os.utime(tree / ".hidden.py", (old, old))
    now = time.time()
    os.utime(tree / "src" / "util.py", (now - 10, now - 10))
    r = await call("vecli.glob", {"pattern": "**/*.py"}, ctx)
    root = ctx.workspace.root
    assert r.llm_content == (
        f'Found 3 file(s) matching "**/*.py" within {root}, sorted by modification time '
        f"(newest first):\n{root}/src/util.py\n{root}/.hidden.py\n{root}/src/main.py"
    )


async def test_glob_levels_case_and_gitignore(ctx: ToolContext, tree: Path) -> None:
    r = await call("vecli.glob", {"pattern": "*.py"}, ctx)
    assert r.data["files"] == [str(ctx.workspace.root / ".hidden.py")]
    r = await call("vecli.glob", {"pattern": "SRC/*.PY", "case_sensitive": True}, ctx)
    assert r.data == {"files": []} and r.llm_content.startswith("No files found matching pattern")
    r = await call("vecli.glob", {"pattern": "build/*.py"}, ctx)
    assert r.data == {"files": []}
    r = await call("vecli.glob", {"pattern": "build/*.py", "respect_git_ignore": False}, ctx)
    assert r.data["files"] == [str(ctx.workspace.root / "build" / "gen.py")]


def test_matcher_and_recent_first() -> None:
    m = Matcher(["src/**/*.{ts,tsx}"], ["**/*.test.ts"])
    assert m("src/a/b.tsx") and not m("src/a/b.test.ts") and not m("lib/x.ts")
    files = [Found("b", Path("b"), 0.0), Found("a", Path("a"), 0.0), Found("z", Path("z"), 99.0)]
    assert [f.rel for f in recent_first(files, now=100.0)] == ["z", "a", "b"]


# -- read_many_files ----------------------------------------------------------------------------


async def test_read_many_files_separators_and_end(ctx: ToolContext, tree: Path) -> None:
    r = await call("vecli.read_many_files", {"paths": ["src/*.py", "README.md"]}, ctx)
    assert r.llm_content == (
        "--- README.md ---\n\n# Demo\n\nHello.\n\n\n"
        "--- src/main.py ---\n\nprint('hi')\n\n\n"
        "--- src/util.py ---\n\n# TODO: tidy\ndef helper():\n    return 1\n\n\n"
        "--- End of content ---"
    )
    # recorded as read: a later whole-file write is checked against it
    store = ctx.workspace.documents
    assert store.reads.last(ctx.session_id, tree / "src" / "util.py") is not None


async def test_read_many_files_excludes_and_skips(ctx: ToolContext, tree: Path) -> None:
    r = await call("vecli.read_many_files", {"paths": ["."], "exclude": ["src/**"]}, ctx)
    assert "--- .gitignore ---" in r.llm_content and "--- README.md ---" in r.llm_content
    assert "src/" not in r.llm_content.split("--- End of content ---")[0]
    assert "node_modules" not in r.llm_content and "build/gen.py" not in r.llm_content
    assert "logo.png" not in r.llm_content  # default excludes
    r = await call(
        "vecli.read_many_files", {"paths": ["logo.png"], "useDefaultExcludes": False}, ctx
    )
    assert r.llm_content == (
        "No files matching the criteria were found or all were skipped.\n"
        "Skipped 1 file(s): logo.png (binary file)"
    )


async def test_read_many_files_bad_paths(ctx: ToolContext) -> None:
    r = await call("vecli.read_many_files", {"paths": ["../**"]}, ctx)
    assert r.error is not None and r.error.code == ErrorCode.FORBIDDEN_PATH
    r = await call("vecli.read_many_files", {"paths": ["nope.txt"]}, ctx)
    assert r.error is not None and r.error.message == "paths: nope.txt: no such file or directory"


async def test_read_many_files_truncates_long_files(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "long.txt").write_text("".join(f"{i}\n" for i in range(2500)))
    r = await call("vecli.read_many_files", {"paths": ["long.txt"]}, ctx)
    assert r.llm_content.startswith(
        "--- long.txt ---\n\n[WARNING: This file was truncated. To view the full content, "
        "use the 'read_file' tool on this specific file.]\n0\n"
    )
