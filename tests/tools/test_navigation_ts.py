"""The navigation tools on TypeScript, through typescript-language-server (installed by
`make install` beside Karyi's Python): it answers only for files open in it, so the file
a call is about is opened first (docs/context.md#where-navigation-answers-come-from)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from karyi.navigation.navigator import Navigator
from karyi.settings import Settings
from karyi.tools.context import ToolContext
from karyi.workspace.workspace import Workspace
from tests.support.tool_calls import call

SHAPES = """export interface Shape {
  area(): number;
}

export class Circle implements Shape {
  constructor(private radius: number) {}
  area(): number {
    return Math.PI * this.radius ** 2;
  }
}

export function totalArea(shapes: Shape[]): number {
  return shapes.reduce((sum, s) => sum + s.area(), 0);
}
"""
MAIN = """import { Circle, totalArea } from "./shapes";

// totalArea of two circles
console.log(totalArea([new Circle(1), new Circle(2)]));
"""


@pytest.fixture
async def ts_ctx(tmp_path: Path) -> AsyncIterator[ToolContext]:
    root = tmp_path / "web"
    (root / "src").mkdir(parents=True)
    (root / "src" / "shapes.ts").write_text(SHAPES)
    (root / "src" / "main.ts").write_text(MAIN)
    (root / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}, "include": ["src"]}')
    ws = Workspace.open(root)
    settings = Settings()
    nav = Navigator(settings.navigation, root, ws.documents)
    yield ToolContext(workspace=ws, settings=settings, navigator=nav)
    await nav.aclose()


async def test_typescript_definitions_references_and_calls(ts_ctx: ToolContext) -> None:
    found = await call("karyi.definition", {"symbol": "totalArea"}, ts_ctx)
    assert found.llm_content.splitlines()[1:] == [
        "src/shapes.ts:12:17: export function totalArea(shapes: Shape[]): number {"
    ]
    refs = await call("karyi.references", {"symbol": "totalArea"}, ts_ctx)
    assert refs.llm_content.splitlines() == [
        "References of totalArea: 3 in 2 files",
        "src/shapes.ts:12:17: export function totalArea(shapes: Shape[]): number {",
        'src/main.ts:1:18: import { Circle, totalArea } from "./shapes";',
        "src/main.ts:4:13: console.log(totalArea([new Circle(1), new Circle(2)]));",
    ]  # the comment naming it is not a reference
    method = await call("karyi.references", {"symbol": "Circle.area"}, ts_ctx)
    assert "src/shapes.ts:13:44: return shapes.reduce((sum, s) => sum + s.area(), 0);" in (
        method.llm_content
    )
    callers = await call("karyi.calls", {"symbol": "totalArea"}, ts_ctx)
    assert callers.llm_content.splitlines()[1].startswith("src/main.ts:4:13: console.log(")
    outline = await call("karyi.symbols", {"path": "src/shapes.ts"}, ts_ctx)
    assert "src/shapes.ts:5:14: export class Circle implements Shape {  (class Circle)" in (
        outline.llm_content
    )


async def test_a_typescript_rename_reaches_every_file(ts_ctx: ToolContext) -> None:
    done = await call("vecli.rename", {"symbol": "totalArea", "new_name": "sumOfAreas"}, ts_ctx)
    assert done.success, done.llm_content
    root = ts_ctx.workspace.root
    assert "export function sumOfAreas(" in (root / "src" / "shapes.ts").read_text()
    assert (root / "src" / "main.ts").read_text() == MAIN.replace(
        "{ Circle, totalArea }", "{ Circle, sumOfAreas }"
    ).replace("log(totalArea(", "log(sumOfAreas(")
