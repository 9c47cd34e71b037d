"""`workspace/executeCommand` tasks for a client without Karyi's UI."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.lsp.conftest import TWO_HUNKS, FakeEditor, Start, edit_reply
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_plain_client_full_task(lsp: Start, fake_llm: FakeModelServer, ws_root: Path) -> None:
    """Neovim without Karyi's UI: executeCommand, showMessageRequest, applyEdit, showMessage."""
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
    assert ed.text(uri) == expected and (ws_root / "calc.py").read_text() == expected
    assert [m.message for m in client.messages] == ["Bumped both."]


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
