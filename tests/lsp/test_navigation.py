"""The navigation tools over LSP: answered by the editor's own language features
(`karyi/navigate`) for a client that declares them, by Karyi's own language servers when
the editor has nothing or for a client that does not
(docs/context.md#where-navigation-answers-come-from)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from karyi.core.plain_json import plain
from tests.lsp.conftest import Start, request, wait_for_event
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

SHAPES = (
    "export function area(width: number, height: number): number {\n  return width * height;\n}\n"
)
MAIN = "import { area } from './shapes';\nconsole.log(area(2, 3));\n"
GREET = "def greet(name: str) -> str:\n    return 'hi ' + name\n\n\nprint(greet('you'))\n"


def _range(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def _loc(path: Path, line: int, start: int, end: int) -> dict[str, Any]:
    return {"uri": path.as_uri(), "range": _range(line, start, end)}


class TypeScriptEditor:
    """What VS Code's TypeScript features answer about `area` in the project, as the
    extension hands them over (LSP shapes): the asked methods are recorded."""

    def __init__(self, root: Path) -> None:
        self.shapes = (root / "src" / "shapes.ts").resolve()
        self.main = (root / "src" / "main.ts").resolve()
        self.asked: list[str] = []

    def uses(self) -> list[tuple[Path, int, int]]:
        return [(self.shapes, 0, 16), (self.main, 0, 9), (self.main, 1, 12)]

    def answer(self, params: Any) -> dict[str, Any]:
        asked = plain(params)
        method, inner = asked["method"], asked["params"]
        self.asked.append(method)
        if method == "textDocument/documentSymbol":
            if inner["textDocument"]["uri"] != self.shapes.as_uri():
                return {"result": []}
            area = {"name": "area", "kind": 12, "range": _range(0, 0, 60)}
            return {"result": [{**area, "selectionRange": _range(0, 16, 20)}]}
        if method == "textDocument/references":
            return {"result": [_loc(p, line, col, col + 4) for p, line, col in self.uses()]}
        if method == "textDocument/definition":
            return {"result": [_loc(self.shapes, 0, 16, 20)]}
        if method == "textDocument/rename":
            changes: dict[str, list[Any]] = {}
            for p, line, col in self.uses():
                edit = {"range": _range(line, col, col + 4), "newText": inner["newName"]}
                changes.setdefault(p.as_uri(), []).append(edit)
            # documentChanges: pygls makes a JSON object a namedtuple, so URIs as keys are lost
            documents = [
                {"textDocument": {"uri": uri, "version": None}, "edits": edits}
                for uri, edits in changes.items()
            ]
            return {"result": {"documentChanges": documents}}
        return {"result": None}


def _project(root: Path) -> None:
    (root / "src" / "shapes.ts").write_text(SHAPES)
    (root / "src" / "main.ts").write_text(MAIN)


def _told(fake: FakeModelServer, n: int) -> str:
    return str(fake.requests[n].body["messages"][-1]["content"])


async def test_references_come_from_the_editors_provider(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    _project(ws_root)
    editor = TypeScriptEditor(ws_root)
    fake_llm.script(Reply(text='<tools><references symbol="area"/></tools>'), Reply(text="Two."))
    client = await lsp(navigation=True, settings={"navigation": {"source": "editor"}})
    client.feature("karyi/navigate")(lambda params: editor.answer(params))
    result = await request(client, "karyi/chat", {"message": "who uses area?"})
    assert result.stopReason == "end_turn"
    assert (
        "References of area: 3 in 2 files\n"
        "src/shapes.ts:1:17: export function area(width: number, height: number): number {\n"
        "src/main.ts:1:10: import { area } from './shapes';\n"
        "src/main.ts:2:13: console.log(area(2, 3));"
    ) in _told(fake_llm, 1)
    assert editor.asked[-1] == "textDocument/references"
    assert "textDocument/documentSymbol" in editor.asked  # the name found through the editor


async def test_a_rename_by_the_editor_is_reviewed_then_written(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    _project(ws_root)
    editor = TypeScriptEditor(ws_root)
    call = '<tools><rename symbol="area" path="src/shapes.ts" new_name="surface"/></tools>'
    fake_llm.script(Reply(text=call), Reply(text="Renamed."))
    client = await lsp(navigation=True)
    client.feature("karyi/navigate")(lambda params: editor.answer(params))
    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "rename area"}))
    awaiting = await wait_for_event(client, "toolAwaitingPermission")
    files = {f["path"]: f for f in awaiting["confirmation"]["files"]}
    assert sorted(files) == ["src/main.ts", "src/shapes.ts"]
    assert [h["id"] for h in files["src/main.ts"]["hunks"]] == ["h1"]
    assert "textDocument/rename" in editor.asked
    session = client.updates[0]["sessionId"]
    confirm = {"sessionId": session, "toolCallId": awaiting["call"]["id"], "outcome": "allowOnce"}
    await request(client, "karyi/confirmTool", confirm)
    assert (await chat).stopReason == "end_turn"
    assert (ws_root / "src" / "shapes.ts").read_text() == SHAPES.replace("area", "surface")
    assert (ws_root / "src" / "main.ts").read_text() == MAIN.replace("area", "surface")
    assert "Renamed area to surface in 2 files" in _told(fake_llm, 1)


async def test_an_editor_with_nothing_falls_back_to_karyis_server(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    (ws_root / "src" / "main.py").write_text(GREET)
    asked: list[str] = []
    fake_llm.script(Reply(text='<tools><references symbol="greet"/></tools>'), Reply(text="Ok."))
    client = await lsp(navigation=True)

    @client.feature("karyi/navigate")
    def nothing(params: Any) -> dict[str, Any]:
        asked.append(plain(params)["method"])
        return {"result": []}  # no provider for Python in this editor

    await request(client, "karyi/chat", {"message": "who calls greet?"})
    assert "textDocument/references" in asked
    told = _told(fake_llm, 1)
    assert "References of greet: 2 in 1 file\n" in told, told
    assert "src/main.py:5:7: print(greet('you'))" in told


async def test_a_client_that_does_not_declare_it_is_never_asked(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    (ws_root / "src" / "main.py").write_text(GREET)
    asked: list[Any] = []
    fake_llm.script(Reply(text='<tools><references symbol="greet"/></tools>'), Reply(text="Ok."))
    client = await lsp()
    client.feature("karyi/navigate")(lambda params: asked.append(params))
    await request(client, "karyi/chat", {"message": "who calls greet?"})
    assert asked == []
    assert "References of greet: 2 in 1 file\n" in _told(fake_llm, 1)
