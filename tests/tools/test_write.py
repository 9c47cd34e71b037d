"""Every whole-file write of every profile: write_file, append_file, create/update_file."""

from __future__ import annotations

from pathlib import Path

from karyi.tools.context import ToolContext
from tests.support.tool_calls import call


async def test_agentxml_write_file(ctx: ToolContext, ws_root: Path) -> None:
    r = await call("agentxml.write_file", {"filePath": "a/b/new.txt", "content": "hi\n"}, ctx)
    assert r.data == "Created a/b/new.txt (3 bytes)"
    r = await call("agentxml.write_file", {"filePath": "a/b/new.txt", "content": "hello\n"}, ctx)
    assert r.data == "Overwrote a/b/new.txt (6 bytes)"
    r = await call("agentxml.write_file", {"filePath": "a/b/new.txt", "content": "hello\n"}, ctx)
    assert r.data == "a/b/new.txt already has this content; nothing was written"


async def test_agentxml_append_keeps_crlf(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "w.txt").write_bytes(b"a\r\nb\r\n")
    r = await call("agentxml.append_file", {"filePath": "w.txt", "content": "c\nd\n"}, ctx)
    assert r.data == "Appended to w.txt: 4 bytes appended (now 12 bytes)"
    assert (ws_root / "w.txt").read_bytes() == b"a\r\nb\r\nc\r\nd\r\n"
    r = await call("agentxml.append_file", {"filePath": "fresh.txt", "content": "x"}, ctx)
    assert r.data == "Created fresh.txt: 1 bytes appended (now 1 bytes)"


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


async def test_paths_the_model_meant_elsewhere_are_refused_not_created(
    ctx: ToolContext, ws_root: Path
) -> None:
    before = sorted(p.name for p in ws_root.iterdir())
    for raw in ("file:///etc/passwd", "$HOME/.bashrc", "~root/.profile"):
        result = await call("agentxml.write_file", {"filePath": raw, "content": "x"}, ctx)
        assert not result.success, raw
        assert "Created" not in result.llm_content
    assert sorted(p.name for p in ws_root.iterdir()) == before
