"""The navigation tools where no language server answers: `definition` and `symbols`
from the tree-sitter index, marked as syntactic; the tools that need a server say
plainly that there is none, and which setting would add one
(docs/context.md#where-navigation-answers-come-from)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from karyi.navigation.navigator import Navigator
from karyi.settings import Settings
from karyi.settings.language_servers import LanguageServer, Navigation
from karyi.tools.context import ToolContext
from karyi.workspace.workspace import Workspace
from tests.support.tool_calls import call, code

DATA = Path(__file__).parents[1] / "navigation" / "data" / "syntax"

SERVERS = {
    "go": LanguageServer(command=["karyi-no-such-gopls"], extensions=[".go"]),
    "rust": LanguageServer(command=["false"], extensions=[".rs"]),  # exits at once
}
"""Go's server is not installed; Rust's starts and dies; Java, C++ and Ruby have none."""


@pytest.fixture
async def ctx(tmp_path: Path) -> AsyncIterator[ToolContext]:
    root = tmp_path / "ws"
    shutil.copytree(DATA, root)
    ws = Workspace.open(root)
    settings = Settings()
    nav = Navigator(Navigation(servers=SERVERS, timeout_seconds=10), root, ws.documents)
    yield ToolContext(workspace=ws, settings=settings, navigator=nav)
    await nav.aclose()


async def test_definition_by_name_is_syntactic(ctx: ToolContext) -> None:
    found = await call("karyi.definition", {"symbol": "TotalArea"}, ctx)
    assert found.success, found.llm_content
    lines = found.llm_content.splitlines()
    assert lines[0] == "Definition of TotalArea: 1 in 1 file"
    assert lines[1].startswith("(syntactic: found by parsing with tree-sitter") and "Go" in lines[1]
    assert lines[2:] == [
        "go/shapes/shapes.go:30:6: func TotalArea(shapes []Shape) float64 {  (function TotalArea)"
    ]
    assert isinstance(found.data, dict) and found.data["syntactic"] is True
    # qualified, in Java; a C function is its body, not its header's prototype
    method = await call("karyi.definition", {"symbol": "Circle.area"}, ctx)
    assert {d["path"] for d in method.data["locations"]} >= {  # type: ignore[index]
        "java/com/example/Shapes.java",
        "cpp/shapes.cpp",
        "cpp/shapes.hpp",
        "ruby/lib/shapes.rb",
    }
    c = await call("karyi.definition", {"symbol": "circle_area"}, ctx)
    assert [d["path"] for d in c.data["locations"]] == ["c/shapes.c"]  # type: ignore[index]
    # from a use: the word at a line of a file
    used = await call("karyi.definition", {"path": "go/main.go", "line": 11, "column": 22}, ctx)
    assert used.llm_content.splitlines()[2].startswith("go/shapes/shapes.go:30:6:")


async def test_a_server_that_will_not_start_falls_back_too(ctx: ToolContext) -> None:
    first = await call("karyi.definition", {"symbol": "total_area", "path": "rust/src/lib.rs"}, ctx)
    assert first.success, first.llm_content
    assert "rust/src/lib.rs:35:8: pub fn total_area(" in first.llm_content
    refs = await call("karyi.references", {"symbol": "total_area", "path": "rust/src/lib.rs"}, ctx)
    assert code(refs) == "tool_disabled"
    assert "no language server is available for Rust files: false did not start" in (
        refs.llm_content
    )


async def test_tools_that_need_a_server_say_there_is_none(ctx: ToolContext) -> None:
    for tool in ("karyi.references", "karyi.hover", "karyi.calls"):
        result = await call(tool, {"symbol": "TotalArea"}, ctx)
        assert code(result) == "tool_disabled", result.llm_content
        assert (
            "no language server is available for Go files: karyi-no-such-gopls is not on "
            "PATH (install it, or set `navigation.servers.go`)"
        ) in result.llm_content
    renamed = await call("vecli.rename", {"symbol": "totalArea", "new_name": "sum"}, ctx)
    assert not renamed.success
    assert "no language server is available for Java files: add one to the " in (
        renamed.llm_content
    )
    assert "`navigation.servers` setting" in renamed.llm_content


async def test_symbols_outline_and_search_are_syntactic(ctx: ToolContext) -> None:
    outline = await call("karyi.symbols", {"path": "ruby/lib/shapes.rb"}, ctx)
    lines = outline.llm_content.splitlines()
    assert lines[0] == "Outline of ruby/lib/shapes.rb: 6"
    assert "Ruby" in lines[1] and lines[1].startswith("(syntactic")
    assert "ruby/lib/shapes.rb:13:9: def area  (method Shapes.Circle.area)" in lines
    search = await call("karyi.symbols", {"query": "total"}, ctx)
    names = {d["path"] for d in search.data["symbols"]}  # type: ignore[index]
    assert names == {
        "go/shapes/shapes.go",
        "rust/src/lib.rs",
        "c/shapes.c",
        "c/shapes.h",
        "cpp/shapes.cpp",
        "cpp/shapes.hpp",
        "java/com/example/Shapes.java",
        "ruby/lib/shapes.rb",
    }
    unknown = await call("karyi.definition", {"symbol": "NoSuchThing"}, ctx)
    assert code(unknown) == "tool_not_found"
