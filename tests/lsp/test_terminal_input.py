"""`karyi/terminalInput`: what the user types into the agent's terminal reaches the
command running there, and its output comes back as `karyi/terminalOutput`
(docs/protocol.md, "The language server")."""

from __future__ import annotations

import asyncio

from karyi.core.plain_json import plain
from tests.lsp.conftest import Start, request
from tests.lsp.test_edits import sid
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply
from tests.support.waiting import eventually


async def test_typed_input_reaches_the_running_command(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(
        Reply(text="<tools><command>echo ready; head -n 1 | tr a-z A-Z</command></tools>"),
        Reply(text="Done.", paced=True),  # the turn waits while the user types
    )
    client = await lsp(settings={"permissions": {"tools": {"command": "auto"}}})
    chat = asyncio.ensure_future(request(client, "karyi/chat", {"message": "ask me"}))
    # The command told the model it waits for input; the model's answer is held.
    await asyncio.to_thread(fake_llm.wait_requests, 2)
    typed = await request(
        client, "karyi/terminalInput", {"sessionId": sid(client), "data": "hello\n"}
    )
    assert plain(typed) == {"ok": True}
    await eventually(
        lambda: "HELLO" in "".join(n["data"] for n in client.terminal),  # type: ignore[attr-defined]
        "the command's answer to the typed line in the terminal",
    )
    fake_llm.release(100)
    assert (await chat).finalAnswer == "Done."
