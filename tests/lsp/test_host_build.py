"""The agent host is built off the event loop: the editor's first notifications are
handled while it is built, and none is lost (docs/architecture.md#the-front-ends).

The build is held for as long as the test wants by making the user settings file a
named pipe: the thread that builds the host reads it first, and a pipe's read waits for
a writer. Nothing else reads that file before the host is built.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound

from tests.lsp.conftest import Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

PATIENCE = 30.0
"""Seconds before a wait that should end at once counts as the test failing."""


def _release(pipe: Path) -> None:
    """Let the build go on: the build's read of `pipe` gets `{}`, and the settings file
    is a plain one for every later read (the editor's settings are pulled after)."""
    with pipe.open("w") as writer:  # the reader waiting in open() goes on
        plain = pipe.with_name("settings.plain")
        plain.write_text("{}")
        os.replace(plain, pipe)
        writer.write("{}")


def _built(client: object) -> bool:
    """The server logged `karyi <version>: workspace <root>, model <model>`: its host is in."""
    messages = getattr(client, "log_messages", [])
    return any(re.match(r"karyi \S+: workspace ", m.message) for m in messages)


async def test_notifications_are_handled_while_the_host_is_built(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path, _isolated_config: Path
) -> None:
    pipe = _isolated_config / "settings.json"
    os.mkfifo(pipe)
    fake_llm.script(
        Reply(text='<tools><read><file src="src/main.py"/></read></tools>'), Reply(text="ok")
    )
    client = await lsp()  # `initialized` sent: the build now waits on the pipe
    uri = (ws_root / "src" / "main.py").as_uri()
    item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text="print(1)\n")
    client.text_document_did_open(types.DidOpenTextDocumentParams(item))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="print(2)\n")],
        )
    )
    try:
        try:  # answered after the two notifications were handled: messages are read in order
            async with asyncio.timeout(PATIENCE):
                await client.protocol.send_request_async("karyi/noSuchMethod", None)
        except JsonRpcMethodNotFound:
            pass
        assert not _built(client)  # the host is still being built
        chat = asyncio.ensure_future(
            client.protocol.send_request_async("karyi/chat", {"message": "read main"})
        )
    finally:  # the server's shutdown waits for the host too
        await asyncio.to_thread(_release, pipe)
    async with asyncio.timeout(PATIENCE):
        await chat  # waited for the host, then ran
    assert _built(client)
    results = fake_llm.requests[1].body["messages"][-1]["content"]
    assert "print(2)" in results  # the buffer as the editor changed it during the build
