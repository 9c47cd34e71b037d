"""Every workspace folder of the editor is a root, also the ones added later."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.lsp.conftest import Start, request
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


def _folder(base: Path, name: str, text: str) -> Path:
    folder = base / name
    folder.mkdir()
    (folder / "notes.txt").write_text(text)
    (folder / "AGENTS.md").write_text(f"Rules of {name}.\n")
    return folder.resolve()


async def test_folders_at_start_and_added_later_are_roots(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path, tmp_path: Path
) -> None:
    api = _folder(tmp_path, "api", "api notes\n")
    web = _folder(tmp_path, "web", "web notes\n")
    client = await lsp(more_folders=[api])
    rules = await request(client, "karyi/rules", {})
    assert [r.path for r in rules.rules] == [str(api / "AGENTS.md")]

    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(web.as_uri(), "web")],
                removed=[types.WorkspaceFolder(api.as_uri(), "api")],
            )
        )
    )
    fake_llm.script(
        Reply(
            text='<tools><read><file src="web/notes.txt"/>'
            '<file src="api/notes.txt"/></read></tools>'
        ),
        Reply(text="Read."),
    )
    result = await request(client, "karyi/chat", {"message": "read the notes"})
    assert result.stopReason == "end_turn"
    system = fake_llm.requests[0].body["messages"][0]["content"]
    assert f"web = {web}" in system and "api = " not in system
    assert "Rules of web." in system
    sent = fake_llm.requests[1].body["messages"][-1]["content"]
    assert "web notes" in sent
    assert "api/notes.txt: no such file or directory" in sent  # no folder api: from the root
