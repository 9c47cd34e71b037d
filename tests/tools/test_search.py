"""grep, glob and the directory listings (vecli ls, agentxml list_file), over a real tree."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from karyi.core.errors import ErrorCode
from karyi.tools.builtin import listing as listing_tools
from karyi.tools.context import ToolContext
from karyi.workspace import ripgrep
from karyi.workspace.globs import Found, Matcher, recent_first
from tests.support.tool_calls import call

# -- vecli (Gemini CLI): grep, glob ------------------------------------------------------


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
    (ws_root / "many.txt").write_text("hit\n" * (ripgrep.MAX_MATCHES + 50))
    r = await call("vecli.grep", {"pattern": "hit"}, ctx)
    assert r.data["capped"] and len(r.data["matches"]) == ripgrep.MAX_MATCHES
    assert r.llm_content.endswith(
        f"(results capped at {ripgrep.MAX_MATCHES} matches; more exist: narrow the pattern, "
        "path or include to see them)"
    )


async def test_grep_invalid_regex_is_a_precise_error(ctx: ToolContext) -> None:
    r = await call("vecli.grep", {"pattern": "a("}, ctx)
    assert r.error is not None and r.error.code == ErrorCode.INVALID_TOOL_INPUT
    assert r.error.message.startswith("pattern: 'a(' is not a valid regular expression (")


async def test_grep_outside_the_workspace_is_forbidden(ctx: ToolContext) -> None:
    r = await call("vecli.grep", {"pattern": "x", "path": "/etc"}, ctx)
    assert r.error is not None and r.error.code == ErrorCode.FORBIDDEN_PATH


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
    files = [Found("b", "b", 0.0), Found("a", "a", 0.0), Found("z", "z", 99.0)]
    assert [f.rel for f in recent_first(files, now=100.0)] == ["z", "a", "b"]


# -- listings: vecli ls, agentxml list_file ----------------------------------------------


async def test_vecli_ls(ctx: ToolContext, ws_root: Path) -> None:
    result = await call("vecli.ls", {"path": str(ws_root)}, ctx)
    assert result.llm_content == (
        f"Directory listing for {ws_root.resolve()}:\n[DIR] src\n.gitignore\nREADME.md"
        "\n\n(2 git-ignored)"
    )
    assert result.display == "Listed 3 item(s). (2 git-ignored)"


async def test_vecli_ls_ignore_patterns_and_no_gitignore(ctx: ToolContext, ws_root: Path) -> None:
    result = await call(
        "vecli.ls", {"path": ".", "ignore": ["*.md"], "respect_git_ignore": False}, ctx
    )
    assert result.llm_content == (
        f"Directory listing for {ws_root.resolve()}:\n[DIR] build\n[DIR] src\n.gitignore\ndebug.log"
    )


async def test_vecli_ls_empty_directory(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "empty").mkdir()
    result = await call("vecli.ls", {"path": "empty"}, ctx)
    assert result.llm_content == f"Directory {ws_root.resolve() / 'empty'} is empty."


async def test_agentxml_list_file(ctx: ToolContext) -> None:
    result = await call("agentxml.list_file", {"workspacePath": "."}, ctx)
    assert result.data == (
        "src/\n.gitignore  (13 B)\nREADME.md  (15 B)\n(2 git-ignored entries not shown)"
    )
    default = await call("agentxml.list_file", {}, ctx)
    assert default.data == result.data


async def test_glob_states_where_it_stopped_looking(
    ctx: ToolContext, ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(listing_tools, "MAX_GLOB_MATCHES", 3)
    for i in range(5):
        (ws_root / f"m{i}.log").write_text("x")
    r = await call("vecli.glob", {"pattern": "*.log"}, ctx)
    assert r.data["capped"] and r.data["total"] == 3
    assert r.llm_content.startswith('Found more than 3 file(s) matching "*.log"')
    assert r.llm_content.endswith(
        "(stopped looking after 3 matching files, the first in path order; only those were "
        "sorted and the first 1000 are listed: narrow the pattern to see the rest)"
    )
