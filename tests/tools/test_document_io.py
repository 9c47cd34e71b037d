"""Reads and writes on the record: stale reads refused or noted, unsaved buffers seen."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from karyi.core.errors import ErrorCode
from karyi.tools.builtin.document_io import commit
from karyi.tools.context import ToolContext
from karyi.workspace.editor import WriteRecord
from tests.support.tool_calls import call, code, external_write

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


async def test_commit_writes_the_users_text_and_keeps_the_tools_as_the_proposal(
    ctx: ToolContext, ws_root: Path
) -> None:
    path = ws_root / "README.md"
    seen = "# Demo\n\nHello.\n"
    path.write_text("# Demo (typed since)\n\nHello.\n")  # the user typed after the preview
    journal: list[WriteRecord] = []
    ctx = replace(ctx, journal=journal, overrides={str(path): (seen, "# Demo\n\nHi there.\n")})
    base = ctx.workspace.documents.read(path, "README.md")
    commit(ctx, path, "README.md", "# Demo (typed since)\n\nHi.\n", base)
    assert path.read_text() == "# Demo (typed since)\n\nHi there.\n"  # rebased onto the file
    [record] = journal
    assert record.after == "# Demo (typed since)\n\nHi there.\n"
    assert record.proposed == "# Demo (typed since)\n\nHi.\n"


async def test_commit_without_an_answer_records_no_proposal(
    ctx: ToolContext, ws_root: Path
) -> None:
    path = ws_root / "README.md"
    journal: list[WriteRecord] = []
    base = ctx.workspace.documents.read(path, "README.md")
    commit(replace(ctx, journal=journal), path, "README.md", "# Hi\n", base)
    assert [(r.after, r.proposed) for r in journal] == [("# Hi\n", None)]
