"""`workspace/executeCommand` tasks for a client without Karyi's UI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.lsp.conftest import TWO_HUNKS, FakeEditor, Start, edit_reply
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_plain_client_full_task(lsp: Start, fake_llm: FakeModelServer, ws_root: Path) -> None:
    """Neovim without Karyi's UI: executeCommand, showMessageRequest, showMessage; the
    clean open buffer is not sent an edit: the file is written, the editor reloads it."""
    (ws_root / "calc.py").write_text(TWO_HUNKS)
    fake_llm.script(edit_reply("calc.py"), Reply(text="Bumped both."))
    client = await lsp("neovim", ui=False)
    ed = FakeEditor(client)
    uri = ed.open(ws_root / "calc.py")
    asked: list[str] = []

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def ask(params: types.ShowMessageRequestParams) -> types.MessageActionItem:
        asked.append(params.message)
        return types.MessageActionItem(title="Allow")

    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="karyi.chat", arguments=[{"message": "bump"}])
    )
    assert result["stopReason"] == "end_turn"
    assert asked and asked[0].startswith("Karyi wants to: Edit calc.py")
    assert "+    return 10" in asked[0]
    expected = TWO_HUNKS.replace("return 1", "return 10").replace("return 2", "return 20")
    assert (ws_root / "calc.py").read_text() == expected and ed.applied == []
    assert ed.text(uri) == TWO_HUNKS  # until the editor reloads the file
    assert [m.message for m in client.messages] == ["Bumped both."]


async def test_unsaved_changes_get_the_edit_in_the_buffer_only(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    """A buffer with unsaved typing gets the edit through applyEdit (plain `changes`,
    Neovim declares no documentChanges), rebased onto the typing; the disk waits for
    the user's save."""
    (ws_root / "calc.py").write_text(TWO_HUNKS)
    fake_llm.script(edit_reply("calc.py"), Reply(text="Bumped both."))
    client = await lsp("neovim", ui=False, settings={"permissions": {"tools": {"edit": "auto"}}})
    ed = FakeEditor(client)
    uri = ed.open(ws_root / "calc.py")
    ed.type(uri, "# typed\n" + TWO_HUNKS)
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="karyi.chat", arguments=[{"message": "bump"}])
    )
    edited = TWO_HUNKS.replace("return 1", "return 10").replace("return 2", "return 20")
    assert ed.text(uri) == "# typed\n" + edited
    assert (ws_root / "calc.py").read_text() == TWO_HUNKS
    assert list(ed.applied[0]["edit"]) == ["changes"]


async def test_lua_empty_tables_mean_no_argument(lsp: Start, fake_llm: FakeModelServer) -> None:
    """`arguments = { {} }` arrives as `[[]]`, `arguments = {}` as `[]`: no argument."""
    client = await lsp("neovim", ui=False)
    for command in ("karyi.cancel", "karyi.acceptAll", "karyi.rejectAll"):
        for arguments in ([[]], [], [{}], None):
            result = await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=command, arguments=arguments)
            )
            assert result in ({"cancelled": []}, {"answered": []}), (command, arguments)


async def test_chat_continues_the_current_session(lsp: Start, fake_llm: FakeModelServer) -> None:
    """A second `karyi.chat` continues the conversation; `newSession` and `karyi.newChat`
    start one; the first progress message names the session."""
    fake_llm.script(Reply(text="One."), Reply(text="Two."), Reply(text="Three."))
    client = await lsp("neovim", ui=False)

    async def chat(args: dict[str, Any]) -> Any:
        return await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="karyi.chat", arguments=[args])
        )

    first = await chat({"message": "hi"})
    second = await chat({"message": "and then?"})
    assert second["sessionId"] == first["sessionId"]
    assert "One." in str(fake_llm.requests[1].body["messages"])
    third = await chat({"message": "fresh", "newSession": True})
    assert third["sessionId"] != first["sessionId"]
    new = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="karyi.newChat", arguments=[[]])
    )
    assert new["sessionId"] not in (first["sessionId"], third["sessionId"])
    begins = [
        report.message
        for reports in client.progress_reports.values()
        for report in reports
        if isinstance(report, types.WorkDoneProgressBegin)
    ]
    assert begins[:2] == [f"session {first['sessionId']}"] * 2


async def test_init_asks_the_agent_to_write_agents_md(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="I would write AGENTS.md now."))
    client = await lsp("neovim", ui=False)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="karyi.init", arguments=[{}])
    )
    assert result["stopReason"] == "end_turn"
    task = fake_llm.requests[0].body["messages"][-1]["content"]
    assert task.startswith("Write an AGENTS.md file at the root of this repository")


async def test_set_mode_command_for_a_plain_client(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    """`karyi.setMode` switches the loaded sessions; the next turn plans."""
    fake_llm.script(Reply(text="First."), Reply(text="1. read\n2. fix"))
    client = await lsp("neovim", ui=False)
    first = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="karyi.chat", arguments=[{"message": "hi"}])
    )
    switched = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="karyi.setMode", arguments=["plan"])
    )
    assert switched == {"mode": "plan", "sessions": [first["sessionId"]]}
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="karyi.chat", arguments=[{"message": "fix it", "sessionId": first["sessionId"]}]
        )
    )
    assert "You are in PLAN mode" in fake_llm.requests[1].body["messages"][0]["content"]
