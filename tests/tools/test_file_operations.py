"""The file operations (agentxml): delete, copy, move, directories, file info."""

from __future__ import annotations

import json
from pathlib import Path

from karyi.core.errors import ErrorCode
from karyi.tools.context import ToolContext
from tests.support.tool_calls import REG, call, code


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
