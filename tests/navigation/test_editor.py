"""The editor in front of Karyi's servers (navigation/editor.py): its answers are the
tools' when it has some; nothing, an error or a timeout falls back to Karyi's own server;
`navigation.source` `editor` has no fallback; the editor's call hierarchy items are
followed by the editor alone."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from karyi.navigation.editor import EDITOR_ITEM, EditorNavigator, empty
from karyi.navigation.errors import ServerError
from karyi.settings import Settings
from karyi.settings.language_servers import LanguageServer, Navigation
from karyi.tools.context import ToolContext
from karyi.workspace.workspace import Workspace
from tests.support.tool_calls import REG, call

GREET = "def greet(name):\n    return name\n\n\ngreet('x')\n"
PYRIGHT = LanguageServer(command=["basedpyright-langserver", "--stdio"], extensions=[".py"])
Answer = Callable[[str, Any], Any]


class Editor:
    """An `EditorSource` answering with `answer(method, params)` (raising, or never
    answering, as a test wants); every method asked is kept."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.asked: list[str] = []

    async def navigate(self, method: str, params: Any) -> Any:
        self.asked.append(method)
        return await self.answer(method, params)


def _loc(path: Path, line: int, col: int) -> dict[str, Any]:
    end = {"line": line, "character": col + 5}
    return {"uri": path.as_uri(), "range": {"start": {"line": line, "character": col}, "end": end}}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(GREET)
    return tmp_path


@pytest.fixture
async def make(root: Path) -> AsyncIterator[Callable[..., tuple[Editor, ToolContext]]]:
    navs: list[EditorNavigator] = []

    def build(
        answer: Answer, source: str = "auto", wait: float | None = None
    ) -> tuple[Editor, ToolContext]:
        ws = Workspace.open(root)
        settings = Navigation(servers={"python": PYRIGHT}, source=source)  # type: ignore[arg-type]
        editor = Editor(answer)
        nav = EditorNavigator(settings, root, ws.documents, editor)
        if wait is not None:  # the editor's wait only: Karyi's server starts in its own time
            nav.server("python").timeout = wait
        navs.append(nav)
        return editor, ToolContext(workspace=ws, settings=Settings(), navigator=nav, session_id="e")

    yield build
    for nav in navs:
        await nav.aclose()


def test_what_counts_as_nothing() -> None:
    assert all(map(empty, [None, [], {}, {"changes": {}}, {"contents": []}]))
    assert not empty({"contents": "int"}) and not empty([{"uri": "file:///a"}])


async def test_the_editors_answer_is_the_tools(make: Any, root: Path) -> None:
    app = root / "app.py"

    async def answer(method: str, params: Any) -> Any:
        return [_loc(app, 0, 4), _loc(app, 4, 0)] if method == "textDocument/references" else None

    editor, ctx = make(answer, source="editor")
    result = await call("karyi.references", {"path": "app.py", "line": 1}, ctx)
    assert result.llm_content == (
        "References of app.py:1: 2 in 1 file\napp.py:1:5: def greet(name):\napp.py:5:1: greet('x')"
    )
    assert editor.asked == ["textDocument/references"]
    nav = ctx.navigator
    assert isinstance(nav, EditorNavigator) and nav.own is None  # no server of Karyi's at all
    assert nav.editors["python"].answered == {"editor": 1, "fallback": 0}


@pytest.mark.parametrize("fault", ["nothing", "error", "timeout"])
async def test_nothing_an_error_or_a_timeout_falls_back_to_karyis_server(
    make: Any, fault: str
) -> None:
    async def answer(method: str, params: Any) -> Any:
        if fault == "error":
            raise ServerError("no provider answered")
        if fault == "timeout":
            await asyncio.Event().wait()
        return []

    editor, ctx = make(answer, wait=0.5 if fault == "timeout" else None)
    result = await call("karyi.references", {"symbol": "greet"}, ctx)
    assert result.success, result.llm_content
    assert result.llm_content.splitlines()[1:] == [
        "app.py:1:5: def greet(name):",
        "app.py:5:1: greet('x')",
    ]
    assert "textDocument/references" in editor.asked
    nav = ctx.navigator
    assert isinstance(nav, EditorNavigator) and nav.editors["python"].answered["fallback"] >= 2


async def test_the_editor_alone_says_what_failed(make: Any) -> None:
    async def answer(method: str, params: Any) -> Any:
        raise ServerError("the editor failed textDocument/hover: no hover provider")

    _editor, ctx = make(answer, source="editor")
    result = await call("karyi.hover", {"path": "app.py", "line": 1}, ctx)
    assert not result.success
    assert "no hover provider" in result.llm_content


async def test_the_editors_call_hierarchy_items_stay_the_editors(make: Any, root: Path) -> None:
    app = root / "app.py"
    item = {**_loc(app, 0, 4), "name": "greet", "kind": 12, "data": {EDITOR_ITEM: 7}}
    item["selectionRange"] = item["range"]

    async def answer(method: str, params: Any) -> Any:
        if method == "textDocument/prepareCallHierarchy":
            return [item]
        assert params["item"]["data"] == {EDITOR_ITEM: 7}
        caller = {**_loc(app, 4, 0), "name": "app", "kind": 2}
        return [{"from": caller, "fromRanges": [_loc(app, 4, 0)["range"]]}]

    editor, ctx = make(answer)
    result = await call("karyi.calls", {"path": "app.py", "line": 1}, ctx)
    assert result.llm_content.splitlines()[1:] == ["app.py:5:1: greet('x')  (in app)"]
    assert editor.asked == ["textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls"]


async def test_a_rename_worked_out_by_the_editor_is_planned_per_file(make: Any, root: Path) -> None:
    app, use = root / "app.py", root / "use.py"
    use.write_text("from app import greet\n")

    async def answer(method: str, params: Any) -> Any:
        if method == "textDocument/rename":
            edits = {
                p.as_uri(): [{"range": _loc(p, line, col)["range"], "newText": "hello"}]
                for p, line, col in [(app, 0, 4), (use, 0, 16)]
            }
            return {"changes": edits}
        return None

    _editor, ctx = make(answer, source="editor")
    rename = REG.find("karyi.rename")
    params = {"path": "app.py", "line": 1, "new_name": "hello"}
    await rename.prepare(params, ctx)  # type: ignore[attr-defined]
    writes = rename.planned_writes(params, ctx)  # type: ignore[attr-defined]
    assert [(w.display, w.after) for w in writes] == [
        ("app.py", GREET.replace("def greet", "def hello")),
        ("use.py", "from app import hello\n"),
    ]
