"""The agent reads what the user sees: unsaved editor buffers, incremental changes."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.lsp.conftest import Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_an_unsaved_buffer_is_what_the_agent_reads(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path, editor: str
) -> None:
    fake_llm.script(
        Reply(text='<tools><read><file src="src/main.py"/></read></tools>'), Reply(text="ok")
    )
    client = await lsp(editor)
    uri = (ws_root / "src" / "main.py").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text="print('hi')\n")
        )
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(0, 7), types.Position(0, 9)),
                    text="unsaved edit",
                )
            ],
        )
    )
    await client.protocol.send_request_async("karyi/chat", {"message": "read main"})
    results = fake_llm.requests[1].body["messages"][-1]["content"]
    assert "print('unsaved edit')" in results
    assert (ws_root / "src" / "main.py").read_text() == "print('hi')\n"  # disk untouched
