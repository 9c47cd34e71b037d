"""Every edit tool of every profile: find/replace pairs, one replacement, insertion."""

from __future__ import annotations

from pathlib import Path

from karyi.core.errors import ErrorCode
from karyi.tools.context import ToolContext
from tests.support.tool_calls import REG, call, code

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


# -- agentxml: replace_file_content, insert_file_content ---------------------------------


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


# -- vecli (Gemini CLI): edit ------------------------------------------------------------


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
