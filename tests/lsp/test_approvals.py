"""Permissions for a client without Karyi's UI: `window/showMessageRequest`."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.lsp.conftest import READ, Start, request
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_plain_client_gets_show_message_request(
    lsp: Start, fake_llm: FakeModelServer, _isolated_config: Path
) -> None:
    (_isolated_config / "settings.json").write_text(
        '{"permissions": {"tools": {"read": "confirm"}}}'
    )
    fake_llm.script(Reply(text=READ), Reply(text="Done."))
    client = await lsp("neovim", ui=False)
    asked: list[str] = []
    offered: list[list[str]] = []

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def answer(params: types.ShowMessageRequestParams) -> types.MessageActionItem:
        asked.append(params.message)
        offered.append([a.title for a in params.actions or []])
        return types.MessageActionItem(title="Allow")

    result = await request(client, "karyi/chat", {"message": "read"})
    assert result.finalAnswer == "Done."
    assert asked == ["Karyi wants to: Read README.md\n\nAllow it?"]
    assert offered == [["Allow", "Always", "Reject"]]
    assert "Hello." in fake_llm.requests[1].body["messages"][-1]["content"]
