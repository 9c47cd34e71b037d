"""Elided edits through every profile's tools (docs/tools.md#elided-edits): the merged
result is what is previewed, written and told; refusals leave the file untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from karyi.tools.builtin.mutating import MutatingTool
from karyi.tools.context import ToolContext
from tests.support.tool_calls import REG, call, code, snapshot

ABC = "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"
LAZY = "def a():\n    return 1\n\n# ... existing code ...\n\ndef c():\n    return 30\n"
MERGED = ABC.replace("return 3", "return 30")


@pytest.fixture
def m_py(ws_root: Path) -> Path:
    path = ws_root / "m.py"
    path.write_text(ABC)
    return path


async def test_agentxml_write_file_merges_the_issue_case(ctx: ToolContext, m_py: Path) -> None:
    tool = REG.find("agentxml.write_file").loaded()
    assert isinstance(tool, MutatingTool)
    params = {"filePath": "m.py", "content": LAZY}
    preview = tool.preview(params, ctx) or ""
    assert (
        "+    return 30" in preview and "-def b" not in preview and "existing code" not in preview
    )
    (planned,) = tool.planned_writes(params, ctx)
    assert planned.after == MERGED
    r = await call("agentxml.write_file", params, ctx)
    assert m_py.read_text() == MERGED
    assert isinstance(r.data, str) and r.data.startswith("Overwrote m.py (")
    assert "each was replaced by the file's own lines (lines 3-8" in r.data
    assert "-def b" not in r.metadata["diff"]["unified"]


async def test_vecli_write_file_and_gateway_update_merge(ctx: ToolContext, m_py: Path) -> None:
    r = await call("vecli.write_file", {"file_path": "m.py", "content": LAZY}, ctx)
    assert r.success and m_py.read_text() == MERGED
    assert isinstance(r.display, dict) and r.display["newContent"] == MERGED
    assert "no marker was written" in r.llm_content
    lazy2 = LAZY.replace("return 30", "return 31").replace("# ... existing code ...", "...")
    r = await call("gateway.update_file", {"path": "m.py", "content": lazy2}, ctx)
    assert m_py.read_text() == ABC.replace("return 3", "return 31")
    assert isinstance(r.data, dict) and "note" in r.data


async def test_an_append_is_never_merged(ctx: ToolContext, m_py: Path) -> None:
    params = {"path": "m.py", "content": "# ... existing code ...\n", "mode": "append"}
    r = await call("gateway.update_file", params, ctx)
    assert r.success and m_py.read_text() == ABC + "# ... existing code ...\n"


async def test_an_uncertain_merge_is_refused_and_nothing_written(
    ctx: ToolContext, ws_root: Path, m_py: Path
) -> None:
    before = snapshot(ws_root)
    content = "def a():\n    return 9\n...\ndef c():\n    return 30\n"
    r = await call("agentxml.write_file", {"filePath": "m.py", "content": content}, ctx)
    assert code(r) == "invalid_tool_input"
    assert "the line before elision 1 ('return 9') is not in m.py" in r.llm_content
    assert snapshot(ws_root) == before


async def test_a_new_file_keeps_its_text_and_the_model_is_told(
    ctx: ToolContext, ws_root: Path
) -> None:
    content = "class P:\n    # ... existing code ...\n"
    r = await call("gateway.create_file", {"path": "p.py", "content": content}, ctx)
    assert (ws_root / "p.py").read_text() == content
    assert "looked like an elision, but the file is new" in r.llm_content
    r = await call(
        "karyi.edit", {"files": [{"src": "q.py", "pairs": [{"find": "", "replace": "...\n"}]}]}, ctx
    )
    assert (ws_root / "q.py").read_text() == "...\n"
    assert "looked like an elision" in r.llm_content


async def test_elided_finds_through_the_edit_tools(ctx: ToolContext, m_py: Path) -> None:
    find = "def a():\n    ...\n    return 1\n\n\ndef b():\n    ...\ndef c():\n"
    repl = "def a():\n    ...\n    return 1\n\n\ndef b():\n    ...\ndef c2():\n"
    r = await call(
        "karyi.edit", {"files": [{"src": "m.py", "pairs": [{"find": find, "replace": repl}]}]}, ctx
    )
    assert r.success, r.llm_content
    assert m_py.read_text() == ABC.replace("def c()", "def c2()")
    assert "matched around the elision in the find text" in r.llm_content
    r = await call(
        "vecli.edit",
        {
            "file_path": "m.py",
            "old_string": "def a():\n...\ndef c2():",
            "new_string": "def a():\n...\ndef c3():",
        },
        ctx,
    )
    assert r.success and "Note: matched around the elision" in r.llm_content
    r = await call(
        "agentxml.replace_file_content",
        {
            "filePath": "m.py",
            "oldContent": "def b():\n# ...\n    return 2\n",
            "newContent": "def b():\n    return 5\n",
        },
        ctx,
    )
    assert r.success and "replaced (your replacement has no elision there)" in r.llm_content


def test_every_editing_tool_tells_the_model_it_may_elide() -> None:
    for ref in (
        "karyi.edit",
        "agentxml.replace_file_content",
        "agentxml.write_file",
        "vecli.edit",
        "vecli.write_file",
        "gateway.update_file",
    ):
        assert "// ... existing code ..." in REG.find(ref).description, ref
