"""Every read tool of every profile, with its exact output shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from karyi.core.errors import ErrorCode
from karyi.tools.builtin.read import many as read_many
from karyi.tools.context import ToolContext
from tests.support.tool_calls import call

# -- karyi: <read> -----------------------------------------------------------------------


async def test_karyi_read_file_and_directory(ctx: ToolContext) -> None:
    result = await call("karyi.read", {"files": [{"src": "README.md"}, {"src": "src/"}]}, ctx)
    assert result.success
    assert result.llm_content == (
        '<file src="README.md" lines="1-3" total="3">\n# Demo\n\nHello.\n</file>\n'
        '<dir src="src/" entries="1">\nmain.py  (12 B)\n</dir>'
    )


async def test_karyi_read_lists_root_without_git_ignored_entries(ctx: ToolContext) -> None:
    result = await call("karyi.read", {"files": [{"src": "."}]}, ctx)
    assert result.llm_content == (
        '<dir src="." entries="3">\nsrc/\n.gitignore  (13 B)\nREADME.md  (15 B)\n'
        "(2 git-ignored entries not shown)\n</dir>"
    )


async def test_karyi_read_window_states_truncation(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = await call(
        "karyi.read", {"files": [{"src": "long.txt", "offset": 3, "limit": 2}]}, ctx
    )
    assert result.llm_content == (
        '<file src="long.txt" lines="3-4" total="10">\nline 3\nline 4\n'
        '[showing lines 3-4 of 10; read more with <file src="long.txt" offset="5"/>]\n</file>'
    )


async def test_karyi_read_long_lines_are_cut_and_said(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "wide.txt").write_text("x" * 2500 + "\nshort\n")
    result = await call("karyi.read", {"files": [{"src": "wide.txt"}]}, ctx)
    assert "x" * 2000 + "... [line truncated]\nshort\n" in result.llm_content
    assert "[1 long line(s) were cut at 2000 characters]" in result.llm_content


async def test_karyi_read_one_failure_keeps_the_others(ctx: ToolContext) -> None:
    result = await call(
        "karyi.read", {"files": [{"src": "missing.txt"}, {"src": "README.md"}]}, ctx
    )
    assert not result.success
    assert result.error is not None and result.error.code == ErrorCode.NOT_FOUND
    assert '<file src="missing.txt" error="tool_not_found">missing.txt: no such file' in (
        result.llm_content
    )
    assert "Hello." in result.llm_content


async def test_karyi_read_binary_is_refused_politely(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    result = await call("karyi.read", {"files": [{"src": "logo.png"}]}, ctx)
    assert result.error is not None and result.error.code == ErrorCode.BINARY_FILE
    assert "logo.png is a binary file (image/png, 216 B); it cannot be shown as text" in (
        result.llm_content
    )


async def test_karyi_read_outside_the_workspace_is_forbidden(ctx: ToolContext) -> None:
    result = await call("karyi.read", {"files": [{"src": "../x"}]}, ctx)
    assert result.error is not None and result.error.code == ErrorCode.FORBIDDEN_PATH


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


# -- agentxml: read_file -----------------------------------------------------------------


async def test_agentxml_read_file_returns_the_content_string(ctx: ToolContext) -> None:
    result = await call("agentxml.read_file", {"filePath": "README.md"}, ctx)
    assert result.success and result.data == "# Demo\n\nHello.\n"


async def test_agentxml_read_file_missing(ctx: ToolContext) -> None:
    result = await call("agentxml.read_file", {"filePath": "nope.txt"}, ctx)
    assert result.to_dict()["error"] == {
        "code": "tool_not_found",
        "message": "nope.txt: no such file or directory",
    }


async def test_agentxml_read_file_on_a_directory(ctx: ToolContext) -> None:
    result = await call("agentxml.read_file", {"filePath": "src"}, ctx)
    assert result.error is not None and result.error.code == ErrorCode.INVALID_TOOL_INPUT
    assert "src is a directory, not a file" in result.error.message


async def test_agentxml_mistyped_parameter_is_precise(ctx: ToolContext) -> None:
    result = await call("agentxml.read_file", {"filePath": 3}, ctx)
    assert result.error is not None
    assert result.error.message == (
        "read_file: filePath: expected string: file path, got integer 3"
    )


async def test_agentxml_missing_parameter_is_precise(ctx: ToolContext) -> None:
    result = await call("agentxml.read_file", {"path": "x"}, ctx)
    assert result.error is not None
    assert result.error.message == (
        "read_file: missing required parameter 'filePath' (string: file path); "
        "unknown parameter 'path'; expected only: filePath, limit, offset"
    )


# -- vecli (Gemini CLI): read_file, read_many_files --------------------------------------


async def test_vecli_read_file_whole(ctx: ToolContext, ws_root: Path) -> None:
    result = await call("vecli.read_file", {"absolute_path": str(ws_root / "README.md")}, ctx)
    assert result.llm_content == "# Demo\n\nHello.\n"


async def test_vecli_read_file_offset_limit(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "n.txt").write_text("".join(f"{i}\n" for i in range(100)))
    result = await call(
        "vecli.read_file", {"absolute_path": "n.txt", "offset": 10, "limit": 5}, ctx
    )
    assert result.llm_content == (
        "IMPORTANT: The file content has been truncated.\n"
        "Status: Showing lines 11-15 of 100 total lines.\n"
        "Action: To read more of the file, you can use the 'offset' and 'limit' parameters "
        "in a subsequent 'read_file' call. For example, to read the next section of the file, "
        "use offset: 15.\n\n"
        "--- FILE CONTENT (truncated) ---\n10\n11\n12\n13\n14\n"
    )
    assert result.display == "Read lines 11-15 of 100 from n.txt"


async def test_vecli_read_file_default_limit_is_2000_lines(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "big.txt").write_text("".join(f"{i}\n" for i in range(2500)))
    result = await call("vecli.read_file", {"absolute_path": "big.txt"}, ctx)
    assert "Status: Showing lines 1-2000 of 2500 total lines." in result.llm_content
    assert result.llm_content.endswith("1999\n")


async def test_vecli_read_file_offset_past_the_end(ctx: ToolContext) -> None:
    result = await call("vecli.read_file", {"absolute_path": "README.md", "offset": 99}, ctx)
    assert result.error is not None
    assert result.error.message == "offset 99 is past the end of README.md, which has 3 lines"


async def test_vecli_read_file_fractional_offset(ctx: ToolContext) -> None:
    result = await call("vecli.read_file", {"absolute_path": "README.md", "offset": 1.5}, ctx)
    assert result.error is not None
    assert "offset: expected a whole number of lines, got 1.5" in result.error.message


async def test_vecli_read_file_binary(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "blob.bin").write_bytes(bytes(range(256)) * 4)
    result = await call("vecli.read_file", {"absolute_path": "blob.bin"}, ctx)
    assert result.error is not None and result.error.code == ErrorCode.BINARY_FILE


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


# -- gateway: read_file ------------------------------------------------------------------


async def test_gateway_read_file_exact_shape(ctx: ToolContext) -> None:
    result = await call("gateway.read_file", {"path": "README.md"}, ctx)
    assert result.data == {
        "ok": True,
        "path": "README.md",
        "size": 15,
        "truncated": False,
        "content": "# Demo\n\nHello.\n",
        "text": "# Demo\n\nHello.\n",
    }


async def test_gateway_read_file_truncates_large_files(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "huge.txt").write_text("é" * 700_000)  # 1.4 MB of two-byte characters
    result = await call("gateway.read_file", {"path": "huge.txt"}, ctx)
    assert result.data["truncated"] is True
    assert result.data["size"] == 1_400_000
    assert result.data["content"] == "é" * (1024 * 1024 // 2)


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("missing.txt", "tool_not_found"),
        ("../../etc/passwd", "tool_forbidden_path"),
        ("/etc/passwd", "tool_forbidden_path"),
        ("src", "invalid_tool_input"),
    ],
)
async def test_gateway_read_file_errors(ctx: ToolContext, path: str, code: str) -> None:
    result = await call("gateway.read_file", {"path": path}, ctx)
    assert result.error is not None and result.error.code == code


async def test_read_many_files_states_where_patterns_stopped(
    ctx: ToolContext, ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read_many, "MAX_SELECTED", 2)
    (ws_root / "notes").mkdir()
    for i in range(4):
        (ws_root / "notes" / f"n{i}.txt").write_text(f"note {i}\n")
    r = await call("vecli.read_many_files", {"paths": ["notes/*.txt"]}, ctx)
    assert r.data["files"] == ["notes/n0.txt", "notes/n1.txt"] and r.data["capped"]
    assert r.llm_content.endswith(
        "--- End of content ---\nThe patterns match more than 2 files; only the first 2 in "
        "path order were considered: narrow them to see the rest."
    )
