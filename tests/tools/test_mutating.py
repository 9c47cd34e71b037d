"""What every tool that changes files shares: confirmation by default, precise refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from karyi.core.errors import ErrorCode
from karyi.core.results import Permission
from karyi.tools.context import ToolContext
from tests.support.tool_calls import REG, call, code, snapshot

MUTATING = [
    "karyi.edit",
    "agentxml.write_file",
    "agentxml.replace_file_content",
    "agentxml.append_file",
    "agentxml.insert_file_content",
    "agentxml.delete_file",
    "agentxml.copy_file",
    "agentxml.move_file",
    "agentxml.create_directory",
    "agentxml.delete_directory",
    "vecli.write_file",
    "vecli.edit",
    "gateway.create_file",
    "gateway.update_file",
]


@pytest.mark.parametrize("ref", MUTATING)
def test_mutating_tools_confirm_by_default(ref: str) -> None:
    assert REG.find(ref).permission is Permission.CONFIRM


BAD_INPUTS = [
    (
        "karyi.edit",
        {"files": [{"src": "logo.png", "pairs": [{"find": "a", "replace": "b"}]}]},
        ErrorCode.BINARY_FILE,
        "logo.png is a binary file (image/png, 216 B); it cannot be edited as text",
    ),
    (
        "karyi.edit",
        {"files": [{"src": "missing.py", "pairs": [{"find": "a", "replace": "b"}]}]},
        ErrorCode.NOT_FOUND,
        "missing.py does not exist; to create it, use an empty find text",
    ),
    (
        "karyi.edit",
        {"files": [{"src": "src", "pairs": [{"find": "a", "replace": "b"}]}]},
        ErrorCode.INVALID_TOOL_INPUT,
        "src is a directory, not a file: give a file path",
    ),
    (
        "karyi.edit",
        {"files": [{"src": "twice.txt", "pairs": [{"find": "same", "replace": "b"}]}]},
        ErrorCode.INVALID_TOOL_INPUT,
        "pair 1: the find text matches 2 places in twice.txt (lines 1, 2)",
    ),
    (
        "karyi.edit",
        {"files": [{"src": "twice.txt", "pairs": [{"find": "other", "replace": "b"}]}]},
        ErrorCode.INVALID_TOOL_INPUT,
        "pair 1: the find text was not found in twice.txt",
    ),
    (
        "karyi.edit",
        {"files": [{"src": "../outside.txt", "pairs": [{"find": "a", "replace": "b"}]}]},
        ErrorCode.FORBIDDEN_PATH,
        "src '../outside.txt': '..' leads outside the workspace",
    ),
    (
        "agentxml.write_file",
        {"filePath": "logo.png", "content": "x"},
        ErrorCode.BINARY_FILE,
        "logo.png is a binary file (image/png, 216 B); it cannot be overwritten as text",
    ),
    (
        "agentxml.write_file",
        {"filePath": "src", "content": "x"},
        ErrorCode.INVALID_TOOL_INPUT,
        "src is a directory, not a file",
    ),
    (
        "agentxml.write_file",
        {"filePath": "/etc/passwd", "content": "x"},
        ErrorCode.FORBIDDEN_PATH,
        "filePath '/etc/passwd'",
    ),
    (
        "agentxml.replace_file_content",
        {"filePath": "twice.txt", "oldContent": "same", "newContent": "x"},
        ErrorCode.INVALID_TOOL_INPUT,
        "pair 1: the find text matches 2 places",
    ),
    (
        "agentxml.replace_file_content",
        {"filePath": "missing.txt", "oldContent": "a", "newContent": "x"},
        ErrorCode.NOT_FOUND,
        "missing.txt does not exist",
    ),
    (
        "agentxml.append_file",
        {"filePath": "logo.png", "content": "x"},
        ErrorCode.BINARY_FILE,
        "it cannot be appended to as text",
    ),
    (
        "agentxml.insert_file_content",
        {"filePath": "twice.txt", "position": 99, "content": "x"},
        ErrorCode.INVALID_TOOL_INPUT,
        "position 99 is past the end of twice.txt, which has 10 characters",
    ),
    (
        "agentxml.insert_file_content",
        {"filePath": "missing.txt", "position": 0, "content": "x"},
        ErrorCode.NOT_FOUND,
        "missing.txt: no such file or directory",
    ),
    (
        "agentxml.insert_file_content",
        {"filePath": "twice.txt", "position": 1.5, "content": "x"},
        ErrorCode.INVALID_TOOL_INPUT,
        "insert_file_content: position: expected a whole character index, got 1.5",
    ),
    (
        "agentxml.delete_file",
        {"filePath": "src"},
        ErrorCode.INVALID_TOOL_INPUT,
        "src is a directory, not a file: use delete_directory",
    ),
    (
        "agentxml.delete_file",
        {"filePath": "missing.txt"},
        ErrorCode.NOT_FOUND,
        "missing.txt: no such file or directory",
    ),
    (
        "agentxml.copy_file",
        {"sourcePath": "README.md", "targetPath": "twice.txt"},
        ErrorCode.CONFLICT,
        "targetPath twice.txt already exists; delete it first or choose another name",
    ),
    (
        "agentxml.copy_file",
        {"sourcePath": "src", "targetPath": "copy"},
        ErrorCode.INVALID_TOOL_INPUT,
        "src is a directory, not a file: only files can be copied",
    ),
    (
        "agentxml.move_file",
        {"sourcePath": "README.md", "targetPath": "twice.txt"},
        ErrorCode.CONFLICT,
        "targetPath twice.txt already exists",
    ),
    (
        "agentxml.move_file",
        {"sourcePath": "missing", "targetPath": "x"},
        ErrorCode.NOT_FOUND,
        "missing: no such file or directory",
    ),
    (
        "agentxml.create_directory",
        {"dirPath": "twice.txt"},
        ErrorCode.CONFLICT,
        "twice.txt exists and is a file, not a directory",
    ),
    (
        "agentxml.delete_directory",
        {"dirPath": "src"},
        ErrorCode.CONFLICT,
        "src is not empty (1 file(s), 0 directories); pass recursive: true",
    ),
    (
        "agentxml.delete_directory",
        {"dirPath": "README.md"},
        ErrorCode.INVALID_TOOL_INPUT,
        "README.md is a file, not a directory: use delete_file",
    ),
    (
        "agentxml.delete_directory",
        {"dirPath": ".", "recursive": True},
        ErrorCode.FORBIDDEN_PATH,
        ". is a workspace root; it cannot be deleted",
    ),
    (
        "vecli.write_file",
        {"file_path": "logo.png", "content": "x"},
        ErrorCode.BINARY_FILE,
        "is a binary file",
    ),
    (
        "vecli.edit",
        {"file_path": "twice.txt", "old_string": "same", "new_string": "x"},
        ErrorCode.INVALID_TOOL_INPUT,
        "Failed to edit, expected 1 occurrence(s) but found 2 for old_string in file: ",
    ),
    (
        "vecli.edit",
        {"file_path": "twice.txt", "old_string": "zzz", "new_string": "x"},
        ErrorCode.INVALID_TOOL_INPUT,
        "Failed to edit, 0 occurrences found for old_string in ",
    ),
    (
        "vecli.edit",
        {"file_path": "missing.txt", "old_string": "a", "new_string": "x"},
        ErrorCode.NOT_FOUND,
        "File not found. Cannot apply edit. Use an empty old_string to create a new file.",
    ),
    (
        "vecli.edit",
        {"file_path": "twice.txt", "old_string": "", "new_string": "x"},
        ErrorCode.CONFLICT,
        "Failed to edit. Attempted to create a file that already exists.",
    ),
    (
        "vecli.edit",
        {"file_path": "twice.txt", "old_string": "same", "new_string": "same"},
        ErrorCode.INVALID_TOOL_INPUT,
        "No changes to apply. The old_string and new_string are identical in file: ",
    ),
    (
        "vecli.edit",
        {"file_path": "logo.png", "old_string": "a", "new_string": "x"},
        ErrorCode.BINARY_FILE,
        "it cannot be edited as text",
    ),
    (
        "gateway.create_file",
        {"path": "README.md", "content": "x"},
        ErrorCode.CONFLICT,
        "README.md already exists; use update_file",
    ),
    (
        "gateway.update_file",
        {"path": "missing.txt", "content": "x"},
        ErrorCode.NOT_FOUND,
        "missing.txt: no such file; use create_file",
    ),
    (
        "gateway.update_file",
        {"path": "README.md", "content": "x", "mode": "replace"},
        ErrorCode.INVALID_TOOL_INPUT,
        "update_file: mode:",
    ),
    (
        "gateway.update_file",
        {"path": "src", "content": "x"},
        ErrorCode.INVALID_TOOL_INPUT,
        "src is a directory, not a file",
    ),
]


@pytest.mark.parametrize(("ref", "params", "expected_code", "message"), BAD_INPUTS)
async def test_bad_input_is_a_precise_error_and_changes_nothing(
    ctx: ToolContext,
    ws_root: Path,
    ref: str,
    params: dict[str, Any],
    expected_code: str,
    message: str,
) -> None:
    (ws_root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    (ws_root / "twice.txt").write_text("same\nsame\n")
    before = snapshot(ws_root)
    result = await call(ref, params, ctx)
    assert not result.success
    assert code(result) == expected_code, result.llm_content
    assert result.error is not None and message in result.error.message, result.error.message
    assert snapshot(ws_root) == before
