"""The real `karyi lsp --stdio` process driven by a pytest-lsp client, per editor."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from karyi.core.plain_json import plain
from karyi.lsp.wire.results import result_types
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply
from tests.support.wire_shape import mismatches

READ = 'Let me look.\n<tools><read><file src="README.md"/></read></tools>'
TWO_HUNKS = "def one():\n    return 1\n\n\n\n\n\n\ndef two():\n    return 2\n"

EDITORS = {"visual-studio-code": "visual-studio-code", "neovim": "neovim"}

Start = Callable[..., Awaitable[LanguageClient]]


@pytest_asyncio.fixture
async def lsp(
    fake_llm: FakeModelServer, ws_root: Path, _isolated_config: Path
) -> AsyncIterator[Start]:
    """Start a server and initialize it as `editor` would; shut every one down after."""
    clients: list[LanguageClient] = []

    async def start(
        editor: str = "visual-studio-code",
        *,
        ui: bool = True,
        diagnostics: bool = False,
        navigation: bool = False,
        settings: dict[str, Any] | None = None,
        root: Path | None = None,
        more_folders: list[Path] | None = None,
        capabilities: types.ClientCapabilities | None = None,
        env: dict[str, str] | None = None,
    ) -> LanguageClient:
        env = {
            **os.environ,
            "KARYI_CONFIG_DIR": str(_isolated_config),
            "OPENAI_API_KEY": "sk-test",
            **(env or {}),
        }
        config = ClientServerConfig(
            server_command=[sys.executable, "-m", "karyi", "lsp", "--stdio"], server_env=env
        )
        client = await config.start()
        record_updates(client)
        clients.append(client)
        folder = root or ws_root
        options: dict[str, Any] = {
            "settings": {
                "model": "openai:test-model",
                "baseUrl": fake_llm.openai_url,
                **(settings or {}),
            },
        }
        if ui:
            declared = {"diagnostics": diagnostics, "navigation": navigation}
            options["karyi"] = {"ui": True, **{k: True for k, on in declared.items() if on}}
        await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities or client_capabilities(editor),
                workspace_folders=[
                    types.WorkspaceFolder(uri=f.as_uri(), name=f.name)
                    for f in [folder, *(more_folders or [])]
                ],
                root_uri=folder.as_uri(),
                initialization_options=options,
            )
        )
        return client

    yield start
    for client in clients:
        if client.stopped:
            continue
        try:
            await client.shutdown_session()
        finally:
            await client.stop()


def record_updates(client: LanguageClient) -> None:
    """Keep every `karyi/turnUpdate` on `client.updates`; `client.update_seen` wakes waiters."""
    client.updates = []  # type: ignore[attr-defined]
    client.update_seen = asyncio.Event()  # type: ignore[attr-defined]

    client.terminal = []  # type: ignore[attr-defined]

    @client.feature("karyi/turnUpdate")
    def on_update(params: Any) -> None:
        client.updates.append(plain(params))  # type: ignore[attr-defined]
        client.update_seen.set()  # type: ignore[attr-defined]

    @client.feature("karyi/terminalOutput")
    def on_terminal(params: Any) -> None:
        client.terminal.append(plain(params))  # type: ignore[attr-defined]


async def wait_for_event(client: Any, kind: str) -> dict[str, Any]:
    """The first turnUpdate event of `kind`, waiting for updates as they arrive."""
    while True:
        for update in client.updates:
            if update["event"]["type"] == kind:
                return dict(update["event"])
        client.update_seen.clear()
        await asyncio.wait_for(client.update_seen.wait(), 60)


async def request(client: Any, method: str, params: Any) -> Any:
    """Send one of Karyi's custom requests and wait for its result, which must have the
    shape its handler's return type (lsp/wire/results.py) declares (what the extension
    is typed with)."""
    result = await client.protocol.send_request_async(method, params)
    problems = mismatches(plain(result), result_types()[method])
    assert not problems, f"{method} answered off its declared type: {problems}"
    return result


def edit_reply(path: str) -> Reply:
    """A model reply that edits both hunks of TWO_HUNKS in `path`."""
    return Reply(
        text=f'<tools><edit><file src="{path}">'
        "<find>    return 1</find><replace>    return 10</replace>"
        "<find>    return 2</find><replace>    return 20</replace>"
        "</file></edit></tools>"
    )


@pytest.fixture(params=list(EDITORS))
def editor(request: pytest.FixtureRequest) -> str:
    """Each test runs with both editors' captured capabilities."""
    return str(request.param)


class FakeEditor:
    """The parts of an editor the edit flow needs: open documents with versions, and
    `workspace/applyEdit` applied like VS Code does (refused for a stale version)."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.docs: dict[str, tuple[int, str]] = {}
        self.applied: list[dict[str, Any]] = []
        self.refused = 0
        self.interfere: str | None = None  # text the user "types" as the next edit arrives

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            data = plain(client.protocol._converter.unstructure(params))
            changes = data["edit"].get("documentChanges") or [
                {"textDocument": {"uri": uri, "version": None}, "edits": edits}
                for uri, edits in data["edit"]["changes"].items()
            ]
            for change in changes:
                uri = change["textDocument"]["uri"]
                if self.interfere is not None:
                    typed, self.interfere = self.interfere, None
                    self.type(uri, typed)
                version, text = self.docs[uri]
                if change["textDocument"]["version"] not in (None, version):
                    self.refused += 1
                    return types.ApplyWorkspaceEditResult(applied=False, failure_reason="stale")
                for edit in sorted(
                    change["edits"], key=lambda e: _offset(text, e["range"]["start"]), reverse=True
                ):
                    a = _offset(text, edit["range"]["start"])
                    b = _offset(text, edit["range"]["end"])
                    text = text[:a] + edit["newText"] + text[b:]
                self.type(uri, text)
            self.applied.append(data)
            return types.ApplyWorkspaceEditResult(applied=True)

    def open(self, path: Path) -> str:
        uri = path.as_uri()
        text = path.read_text()
        self.docs[uri] = (1, text)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        return uri

    def type(self, uri: str, text: str) -> None:
        """Replace the buffer (the user typing, or an applied edit) and tell the server."""
        version = self.docs[uri][0] + 1
        self.docs[uri] = (version, text)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def text(self, uri: str) -> str:
        return self.docs[uri][1]


def _offset(text: str, pos: dict[str, int]) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[: pos["line"]]) + pos["character"]
