"""Every read tool of every profile, with its exact output shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry

REG = builtin_registry()


async def call(ref: str, params: dict[str, object], ctx: ToolContext) -> ToolResult:
    return await REG.find(ref).run(params, ctx)


# -- karyi: <read> -------------------------------------------------------------------


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


# -- agentxml (seed 001) -------------------------------------------------------------


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


async def test_agentxml_list_file(ctx: ToolContext) -> None:
    result = await call("agentxml.list_file", {"workspacePath": "."}, ctx)
    assert result.data == (
        "src/\n.gitignore  (13 B)\nREADME.md  (15 B)\n(2 git-ignored entries not shown)"
    )
    default = await call("agentxml.list_file", {}, ctx)
    assert default.data == result.data


async def test_agentxml_get_file_info(ctx: ToolContext, ws_root: Path) -> None:
    result = await call("agentxml.get_file_info", {"filePath": "README.md"}, ctx)
    info = result.data
    assert {k: info[k] for k in ("name", "path", "type", "isFile", "isDirectory", "size")} == {
        "name": "README.md",
        "path": "README.md",
        "type": "file",
        "isFile": True,
        "isDirectory": False,
        "size": 15,
    }
    assert info["mimeType"] == "text/markdown"
    assert info["permissions"].startswith("-rw")
    assert json.loads(result.llm_content) == info
    assert set(info) >= {"created", "modified", "accessed", "absolutePath", "isSymlink"}


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


# -- vecli (seed 003, Gemini CLI) ---------------------------------------------------


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


# -- gateway (seed 004) -------------------------------------------------------------


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
