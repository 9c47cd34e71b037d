"""Slash commands over LSP: `karyi/commands` lists `/plan`, `/act` and the custom
commands; a chat message starting with one is expanded for the model."""

from __future__ import annotations

from pathlib import Path

from tests.lsp.conftest import Start, request
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_custom_commands_are_listed_and_expanded(
    lsp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    folder = ws_root / ".karyi" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text("description: Review a file\nReview $ARGUMENTS.")
    fake_llm.script(Reply(text="Fine."))
    client = await lsp()
    listed = await request(client, "karyi/commands", {})
    assert [(c.name, c.scope) for c in listed.commands] == [
        ("act", "builtin"),
        ("plan", "builtin"),
        ("memory", "builtin"),
        ("review", "workspace"),
    ]
    assert listed.commands[3].description == "Review a file"
    await request(client, "karyi/chat", {"message": "/review src/main.py"})
    assert fake_llm.requests[0].body["messages"][-1]["content"] == "Review src/main.py."


async def test_memory_lists_the_memory_files(lsp: Start, ws_root: Path) -> None:
    (ws_root / "KARYI.md").write_text("- a fact\n")
    client = await lsp()
    listed = await request(client, "karyi/memory", {})
    assert [(Path(f.path).name, f.scope, f.exists) for f in listed.files] == [
        ("KARYI.md", "user", False),
        ("KARYI.md", "workspace", True),
    ]
