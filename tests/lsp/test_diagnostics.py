"""Problems after every edit over LSP: from Karyi's own `ruff server` for a client
without diagnostics, from the editor (`karyi/diagnostics`) for one that gives them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from karyi.core.plain_json import plain
from tests.lsp.conftest import Start, request, wait_for_event
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

AUTO = {"permissions": {"tools": {"edit": "auto", "read": "auto"}}}
READ_MAIN = Reply(text='<tools><read><file src="src/main.py"/></read></tools>')
BREAK = Reply(
    text="<tools><edit><file src=\"src/main.py\"><find>print('hi')</find>"
    "<replace>print(greeting)</replace></file></edit></tools>"
)


def _results(fake: FakeModelServer, n: int) -> str:
    return str(fake.requests[n].body["messages"][-1]["content"])


def _pylance(main: Path, line: int, broken: bool) -> dict[str, Any]:
    """The editor's answer: Pylance's undefined `greeting` at `line` when `broken`."""
    found = {
        "range": {"start": {"line": line, "character": 6}, "end": {"line": line, "character": 14}},
        "severity": 1,
        "message": '"greeting" is not defined',
        "source": "Pylance",
        "code": "reportUndefinedVariable",
    }
    return {"diagnostics": [{"uri": main.as_uri(), "diagnostics": [found] if broken else []}]}


async def test_an_undefined_name_is_told_from_ruff_server(
    lsp: Start, fake_llm: FakeModelServer, editor: str
) -> None:
    fake_llm.script(READ_MAIN, BREAK, Reply(text="Oops."))
    client = await lsp(editor, settings=AUTO)
    result = await request(client, "karyi/chat", {"message": "greet"})
    assert result.stopReason == "end_turn"
    assert (
        "New problems after this edit (ruff server); fix them:\n"
        "- src/main.py:1:7: error: Undefined name `greeting` (Ruff F821)"
    ) in _results(fake_llm, 2)


async def test_the_editors_own_diagnostics_reach_the_model(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    asked: list[dict[str, Any]] = []
    main = (ws_root / "src" / "main.py").resolve()
    fake_llm.script(READ_MAIN, BREAK, Reply(text="Oops."))
    client = await lsp(settings=AUTO, ui=True, diagnostics=True)

    @client.feature("karyi/diagnostics")
    def answer(params: Any) -> dict[str, Any]:
        asked.append(plain(params))
        return _pylance(main, line=0, broken="greeting" in main.read_text())

    result = await request(client, "karyi/chat", {"message": "greet"})
    assert result.stopReason == "end_turn"
    assert [a["uris"] for a in asked] == [[main.as_uri()], [main.as_uri()]]
    assert all(0 < a["waitMs"] <= 5000 for a in asked)
    assert [a["changed"] for a in asked] == [False, True]  # before: no need to wait
    assert (
        "New problems after this edit (the editor); fix them:\n"
        '- src/main.py:1:7: error: "greeting" is not defined (Pylance reportUndefinedVariable)'
    ) in _results(fake_llm, 2)
    assert "ruff" not in _results(fake_llm, 2)


async def test_the_baseline_is_asked_before_the_preview_lines_reach_the_buffer(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    """An editor shows a proposal as lines in the buffer, and its linters report them: a
    baseline asked after the user's answer would count the edit's own problems as old."""
    main = (ws_root / "src" / "main.py").resolve()
    fake_llm.script(READ_MAIN, BREAK, Reply(text="Oops."))
    client = await lsp(
        settings={"permissions": {"tools": {"read": "auto"}}}, ui=True, diagnostics=True
    )
    order: list[str] = []
    preview_shown = False

    @client.feature("karyi/diagnostics")
    def answer(params: Any) -> dict[str, Any]:
        order.append("diagnostics")
        # the preview's `print(greeting)` is in the buffer while the proposal waits
        return _pylance(main, line=1, broken=preview_shown or "greeting" in main.read_text())

    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "greet"}))
    awaiting = await wait_for_event(client, "toolAwaitingPermission")
    order.append("awaiting")
    preview_shown = True
    await request(
        client,
        "karyi/confirmTool",
        {
            "sessionId": client.updates[0]["sessionId"],
            "toolCallId": awaiting["call"]["id"],
            "outcome": "allowOnce",
        },
    )
    assert (await chat).stopReason == "end_turn"
    assert order == ["diagnostics", "awaiting", "diagnostics"]
    assert "New problems after this edit (the editor)" in _results(fake_llm, 2)
