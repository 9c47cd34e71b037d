"""Every write/edit tool of every profile: results, refusals, stale reads, confirmations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from karyi.core.errors import ErrorCode
from karyi.core.results import Permission, ToolResult
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry

REG = builtin_registry()

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


async def call(ref: str, params: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return await REG.find(ref).run(params, ctx)


def code(result: ToolResult) -> str | None:
    return result.error.code if result.error else None


def external_write(path: Path, text: str) -> None:
    code_ = "import sys; open(sys.argv[1], 'w').write(sys.argv[2])"
    subprocess.run([sys.executable, "-c", code_, str(path), text], check=True)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("ref", MUTATING)
def test_mutating_tools_confirm_by_default(ref: str) -> None:
    assert REG.find(ref).permission is Permission.CONFIRM


# -- karyi: <edit> -----------------------------------------------------------------------


async def test_karyi_edit_several_files(ctx: ToolContext, ws_root: Path) -> None:
    params = {
        "files": [
            {
                "src": "src/main.py",
                "pairs": [
                    {"find": "print('hi')", "replace": "print('hello')"},
                    {"find": "print('hello')\n", "replace": "print('hello')\nprint('bye')\n"},
                ],
            },
            {"src": "docs/new.md", "pairs": [{"find": "", "replace": "# New\n"}]},
        ]
    }
    result = await call("karyi.edit", params, ctx)
    assert result.success
    assert (ws_root / "src/main.py").read_text() == "print('hello')\nprint('bye')\n"
    assert (ws_root / "docs/new.md").read_text() == "# New\n"
    assert result.llm_content == (
        '<file src="src/main.py" status="edited" added="2" removed="1">\n'
        "pair 1: line 1, exact match\n"
        "pair 2: line 1, exact match\n"
        "@@ -1 +1,2 @@\n-print('hi')\n+print('hello')\n+print('bye')\n"
        "</file>\n"
        '<file src="docs/new.md" status="created" added="1" removed="0">\n'
        "pair 1: line 1, create\n"
        "@@ -0,0 +1 @@\n+# New\n"
        "</file>"
    )
    assert result.data["files"][0]["diff"]["hunks"][0]["id"] == "h1"


async def test_karyi_edit_one_file_refused_others_applied(ctx: ToolContext, ws_root: Path) -> None:
    before = (ws_root / "README.md").read_bytes()
    params = {
        "files": [
            {
                "src": "README.md",
                "pairs": [{"find": "Hello.", "replace": "Hi."}, {"find": "nope", "replace": "x"}],
            },
            {"src": "src/main.py", "pairs": [{"find": "'hi'", "replace": "'yo'"}]},
        ]
    }
    result = await call("karyi.edit", params, ctx)
    assert not result.success and code(result) == ErrorCode.INVALID_TOOL_INPUT
    assert (ws_root / "README.md").read_bytes() == before  # all pairs or none
    assert (ws_root / "src/main.py").read_text() == "print('yo')\n"
    assert '<file src="README.md" status="error" code="invalid_tool_input">pair 2:' in (
        result.llm_content
    )


async def test_karyi_edit_no_change(ctx: ToolContext, ws_root: Path) -> None:
    params = {"files": [{"src": "README.md", "pairs": [{"find": "Hello.", "replace": "Hello."}]}]}
    result = await call("karyi.edit", params, ctx)
    assert result.success and 'status="unchanged"' in result.llm_content


async def test_karyi_edit_confirmation_and_resources(ctx: ToolContext, ws_root: Path) -> None:
    tool = REG.find("karyi.edit")
    params = {"files": [{"src": "README.md", "pairs": [{"find": "Hello.", "replace": "Hi."}]}]}
    conf = tool.confirmation(params, ctx)
    assert conf is not None and conf.kind == "edit" and conf.title == "Edit README.md"
    assert conf.diff == (
        "--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # Demo\n \n-Hello.\n+Hi.\n"
    )
    assert tool.resources(params, ctx) == frozenset({f"file:{ws_root / 'README.md'}"})
    bad = {"files": [{"src": "README.md", "pairs": [{"find": "zzz", "replace": "y"}]}]}
    failing = tool.confirmation(bad, ctx)
    assert failing is not None and failing.diff is None
    assert failing.details.startswith("This call will fail: pair 1: the find text was not found")


# -- bad input: precise error, file byte-for-byte unchanged ---------------------------------


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


# -- stale reads ------------------------------------------------------------------------------


WHOLE_FILE_WRITES = [
    ("agentxml.write_file", {"filePath": "README.md", "content": "mine\n"}),
    ("vecli.write_file", {"file_path": "README.md", "content": "mine\n"}),
    ("gateway.update_file", {"path": "README.md", "content": "mine\n"}),
    ("agentxml.insert_file_content", {"filePath": "README.md", "position": 0, "content": "x"}),
]


@pytest.mark.parametrize(("ref", "params"), WHOLE_FILE_WRITES)
async def test_whole_file_write_after_an_external_change_is_refused(
    ctx: ToolContext, ws_root: Path, ref: str, params: dict[str, Any]
) -> None:
    assert (await call("karyi.read", {"files": [{"src": "README.md"}]}, ctx)).success
    external_write(ws_root / "README.md", "changed by someone else\n")
    result = await call(ref, params, ctx)
    assert code(result) == ErrorCode.CONFLICT
    assert result.error is not None and result.error.message.startswith(
        "README.md changed on disk since you last read it; read it again"
    )
    assert (ws_root / "README.md").read_text() == "changed by someone else\n"
    # after reading again, the write goes through
    assert (await call("agentxml.read_file", {"filePath": "README.md"}, ctx)).success
    assert (await call(ref, params, ctx)).success


async def test_edit_after_an_external_change_applies_when_it_still_matches(
    ctx: ToolContext, ws_root: Path
) -> None:
    await call("karyi.read", {"files": [{"src": "README.md"}]}, ctx)
    external_write(ws_root / "README.md", "# Demo\n\nHello.\nMore text.\n")
    params = {"files": [{"src": "README.md", "pairs": [{"find": "Hello.", "replace": "Hi."}]}]}
    result = await call("karyi.edit", params, ctx)
    assert result.success
    assert (ws_root / "README.md").read_text() == "# Demo\n\nHi.\nMore text.\n"
    assert (
        "Note: README.md changed on disk since you last read it; the find text still matched"
        in (result.llm_content)
    )


async def test_edit_after_an_external_change_that_removed_the_text(
    ctx: ToolContext, ws_root: Path
) -> None:
    await call("vecli.read_file", {"absolute_path": "README.md"}, ctx)
    external_write(ws_root / "README.md", "# Demo\n\nBonjour.\n")
    result = await call(
        "agentxml.replace_file_content",
        {"filePath": "README.md", "oldContent": "Hello.", "newContent": "Hi."},
        ctx,
    )
    assert code(result) == ErrorCode.CONFLICT
    assert result.error is not None and result.error.message.startswith(
        "README.md changed on disk since you last read it, and the edit no longer applies"
    )
    assert (ws_root / "README.md").read_text() == "# Demo\n\nBonjour.\n"


async def test_own_writes_do_not_make_the_read_stale(ctx: ToolContext, ws_root: Path) -> None:
    await call("agentxml.read_file", {"filePath": "README.md"}, ctx)
    assert (
        await call("agentxml.append_file", {"filePath": "README.md", "content": "x\n"}, ctx)
    ).success
    assert (
        await call("agentxml.write_file", {"filePath": "README.md", "content": "y\n"}, ctx)
    ).success


async def test_reads_see_the_unsaved_editor_buffer(ctx: ToolContext, ws_root: Path) -> None:
    path = ws_root / "README.md"
    ctx.workspace.documents.open_buffer(path, "# Unsaved\n", 7)
    result = await call("karyi.read", {"files": [{"src": "README.md"}]}, ctx)
    assert result.llm_content == (
        '<file src="README.md" lines="1-1" total="1" unsaved="true">\n# Unsaved\n</file>'
    )
    gw = await call("gateway.read_file", {"path": "README.md"}, ctx)
    assert gw.data["text"] == "# Unsaved\n"
    edited = await call(
        "karyi.edit",
        {"files": [{"src": "README.md", "pairs": [{"find": "Unsaved", "replace": "Saved"}]}]},
        ctx,
    )
    assert edited.success and path.read_text() == "# Saved\n"


# -- seed 001 -----------------------------------------------------------------------------------


async def test_agentxml_write_file(ctx: ToolContext, ws_root: Path) -> None:
    r = await call("agentxml.write_file", {"filePath": "a/b/new.txt", "content": "hi\n"}, ctx)
    assert r.data == "Created a/b/new.txt (3 bytes)"
    r = await call("agentxml.write_file", {"filePath": "a/b/new.txt", "content": "hello\n"}, ctx)
    assert r.data == "Overwrote a/b/new.txt (6 bytes)"
    r = await call("agentxml.write_file", {"filePath": "a/b/new.txt", "content": "hello\n"}, ctx)
    assert r.data == "a/b/new.txt already has this content; nothing was written"


async def test_agentxml_replace_file_content(ctx: ToolContext, ws_root: Path) -> None:
    r = await call(
        "agentxml.replace_file_content",
        {"filePath": "README.md", "oldContent": "Hello.  ", "newContent": "Hi."},
        ctx,
    )
    assert r.data == (
        "Replaced 1 occurrence in README.md (line 3, matched ignoring whitespace at line ends)"
    )
    assert (ws_root / "README.md").read_text() == "# Demo\n\nHi.\n"


async def test_agentxml_append_keeps_crlf(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "w.txt").write_bytes(b"a\r\nb\r\n")
    r = await call("agentxml.append_file", {"filePath": "w.txt", "content": "c\nd\n"}, ctx)
    assert r.data == "Appended to w.txt: 4 bytes appended (now 12 bytes)"
    assert (ws_root / "w.txt").read_bytes() == b"a\r\nb\r\nc\r\nd\r\n"
    r = await call("agentxml.append_file", {"filePath": "fresh.txt", "content": "x"}, ctx)
    assert r.data == "Created fresh.txt: 1 bytes appended (now 1 bytes)"


async def test_agentxml_insert_file_content(ctx: ToolContext, ws_root: Path) -> None:
    r = await call(
        "agentxml.insert_file_content",
        {"filePath": "README.md", "position": 8, "content": ">> "},
        ctx,
    )
    assert r.data == "Inserted 3 characters into README.md at position 8 (line 3, column 1)"
    assert (ws_root / "README.md").read_text() == "# Demo\n\n>> Hello.\n"
    conf = REG.find("agentxml.insert_file_content").confirmation(
        {"filePath": "README.md", "position": 0, "content": "x"}, ctx
    )
    assert conf is not None and conf.diff is not None and "+x# Demo" in conf.diff


async def test_agentxml_file_operations(ctx: ToolContext, ws_root: Path) -> None:
    r = await call(
        "agentxml.copy_file", {"sourcePath": "README.md", "targetPath": "docs/R.md"}, ctx
    )
    assert r.data == "Copied README.md to docs/R.md (15 bytes)"
    r = await call("agentxml.copy_file", {"sourcePath": "README.md", "targetPath": "src"}, ctx)
    assert r.data == "Copied README.md to src/README.md (15 bytes)"
    r = await call(
        "agentxml.move_file", {"sourcePath": "docs/R.md", "targetPath": "docs/S.md"}, ctx
    )
    assert r.data == "Moved docs/R.md to docs/S.md"
    assert (ws_root / "docs/S.md").read_text() == "# Demo\n\nHello.\n"
    r = await call("agentxml.delete_file", {"filePath": "docs/S.md"}, ctx)
    assert r.data == "Deleted docs/S.md (15 bytes)" and not (ws_root / "docs/S.md").exists()
    r = await call("agentxml.create_directory", {"dirPath": "x/y/z"}, ctx)
    assert r.data == "Created directory x/y/z" and (ws_root / "x/y/z").is_dir()
    r = await call("agentxml.create_directory", {"dirPath": "x/y/z"}, ctx)
    assert r.data == "Directory x/y/z already exists"
    r = await call("agentxml.delete_directory", {"dirPath": "x/y/z"}, ctx)
    assert r.data == "Deleted empty directory x/y/z"
    r = await call("agentxml.delete_directory", {"dirPath": "x", "recursive": True}, ctx)
    assert r.data == "Deleted directory x and its 0 file(s), 1 directory"
    assert not (ws_root / "x").exists()


async def test_deleting_a_symlink_removes_the_link_not_what_it_points_to(
    ctx: ToolContext, ws_root: Path
) -> None:
    # pnpm and friends link packages into node_modules: deleting the link must not
    # delete (or empty) the sources it points to
    (ws_root / "pkg").mkdir()
    (ws_root / "pkg/index.js").write_text("export {}\n")
    (ws_root / "node_modules").mkdir()
    (ws_root / "node_modules/pkg").symlink_to(ws_root / "pkg")
    (ws_root / "latest.md").symlink_to("README.md")

    r = await call(
        "agentxml.delete_directory", {"dirPath": "node_modules/pkg", "recursive": True}, ctx
    )
    assert code(r) == ErrorCode.INVALID_TOOL_INPUT
    assert "node_modules/pkg is a symlink to" in r.error.message  # type: ignore[union-attr]
    assert "delete_file removes the link" in r.error.message  # type: ignore[union-attr]
    assert (ws_root / "pkg/index.js").exists()

    r = await call("agentxml.delete_file", {"filePath": "node_modules/pkg"}, ctx)
    assert r.data == "Deleted the symlink node_modules/pkg (what it pointed to is untouched)"
    assert not (ws_root / "node_modules/pkg").is_symlink()
    assert (ws_root / "pkg/index.js").read_text() == "export {}\n"

    conf = REG.find("agentxml.delete_file").confirmation({"filePath": "latest.md"}, ctx)
    assert conf is not None and conf.diff is None  # the README's text is not what goes
    r = await call("agentxml.delete_file", {"filePath": "latest.md"}, ctx)
    assert r.data == "Deleted the symlink latest.md (what it pointed to is untouched)"
    assert (ws_root / "README.md").read_text() == "# Demo\n\nHello.\n"


async def test_moving_a_symlink_moves_the_link_and_copying_copies_its_target(
    ctx: ToolContext, ws_root: Path
) -> None:
    (ws_root / "latest.md").symlink_to("README.md")
    r = await call("agentxml.copy_file", {"sourcePath": "latest.md", "targetPath": "copy.md"}, ctx)
    assert r.data == "Copied latest.md to copy.md (15 bytes)"
    assert not (ws_root / "copy.md").is_symlink()
    r = await call("agentxml.move_file", {"sourcePath": "latest.md", "targetPath": "src"}, ctx)
    assert r.data == "Moved latest.md to src/latest.md"
    assert (ws_root / "src/latest.md").is_symlink() and (ws_root / "README.md").is_file()


async def test_agentxml_delete_file_confirmation_shows_the_removal(ctx: ToolContext) -> None:
    conf = REG.find("agentxml.delete_file").confirmation({"filePath": "README.md"}, ctx)
    assert conf is not None and conf.diff == (
        "--- a/README.md\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-# Demo\n-\n-Hello.\n"
    )


async def test_copy_and_move_resources_name_both_paths(ctx: ToolContext, ws_root: Path) -> None:
    keys = REG.find("agentxml.move_file").resources(
        {"sourcePath": "README.md", "targetPath": "src"}, ctx
    )
    assert keys == frozenset(
        {
            f"file:{ws_root / 'README.md'}",
            f"file:{ws_root / 'src'}",
            f"file:{ws_root / 'src/README.md'}",
        }
    )


# -- seed 003 -------------------------------------------------------------------------------------


async def test_vecli_write_file(ctx: ToolContext, ws_root: Path) -> None:
    r = await call("vecli.write_file", {"file_path": "n/new.py", "content": "x = 1\n"}, ctx)
    assert r.llm_content == f"Successfully created and wrote to new file: {ws_root / 'n/new.py'}."
    assert isinstance(r.display, dict) and r.display["fileName"] == "new.py"
    assert r.display["originalContent"] is None and r.display["newContent"] == "x = 1\n"
    r = await call(
        "vecli.write_file", {"file_path": str(ws_root / "n/new.py"), "content": "y\n"}, ctx
    )
    assert r.llm_content == f"Successfully overwrote file: {ws_root / 'n/new.py'}."
    assert isinstance(r.display, dict) and "-x = 1\n+y\n" in r.display["fileDiff"]


async def test_vecli_edit(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "m.py").write_text("a = 1\nb = 1\n")
    r = await call(
        "vecli.edit",
        {"file_path": "m.py", "old_string": "= 1", "new_string": "= 2", "expected_replacements": 2},
        ctx,
    )
    assert r.llm_content == f"Successfully modified file: {ws_root / 'm.py'} (2 replacements)."
    assert (ws_root / "m.py").read_text() == "a = 2\nb = 2\n"
    r = await call(
        "vecli.edit", {"file_path": "made.py", "old_string": "", "new_string": "z\n"}, ctx
    )
    assert r.llm_content == f"Created new file: {ws_root / 'made.py'} with provided content."
    r = await call(
        "vecli.edit", {"file_path": "m.py", "old_string": "a  = 2", "new_string": "a = 3"}, ctx
    )
    assert r.success and "Note: matched ignoring whitespace between tokens." in r.llm_content


async def test_vecli_edit_miss_shows_the_closest_region(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "m.py").write_text("def area(r):\n    return 3.14 * r * r\n")
    r = await call(
        "vecli.edit",
        {
            "file_path": "m.py",
            "old_string": "def area(radius):\n    return 3.14 * radius * radius",
            "new_string": "x",
        },
        ctx,
    )
    assert r.error is not None
    assert "The closest region is lines 1-2 (" in r.error.message
    assert r.error.message.endswith("def area(r):\n    return 3.14 * r * r")


# -- seed 004 -------------------------------------------------------------------------------------


async def test_gateway_create_and_update_shapes(ctx: ToolContext, ws_root: Path) -> None:
    r = await call("gateway.create_file", {"path": "relative/path.txt", "content": "abc"}, ctx)
    assert r.data == {
        "ok": True,
        "path": "relative/path.txt",
        "size": 3,
        "text": "created relative/path.txt (3 bytes)",
    }
    r = await call(
        "gateway.update_file", {"path": "relative/path.txt", "content": "de", "mode": "append"}, ctx
    )
    assert r.data == {
        "ok": True,
        "path": "relative/path.txt",
        "mode": "append",
        "size": 5,
        "text": "updated relative/path.txt with mode=append",
    }
    r = await call("gateway.update_file", {"path": "relative/path.txt", "content": "xyz"}, ctx)
    assert r.data == {
        "ok": True,
        "path": "relative/path.txt",
        "mode": "overwrite",
        "size": 3,
        "text": "updated relative/path.txt with mode=overwrite",
    }
    assert (ws_root / "relative/path.txt").read_text() == "xyz"
