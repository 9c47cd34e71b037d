"""A client that offers `fs/*`: the agent reads its unsaved buffers and writes through
it (edits still go through the edit engine and the path policy)."""

from __future__ import annotations

from pathlib import Path

from tests.acp.conftest import READ, Start, edit
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def test_reads_and_writes_go_through_the_client(
    karyi_acp: Start, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    readme = str(ws_root / "README.md")
    fake_llm.script(
        Reply(text=READ),
        Reply(text=edit("README.md", "Unsaved hello.", "Saved hi.")),
        Reply(text="Done."),
    )
    agent = await karyi_acp(fs=True)
    agent.client.buffers[readme] = "# Demo\n\nUnsaved hello.\n"
    sid = await agent.new_session()
    answer = await agent.say(sid, "Fix the README")
    assert answer.stop_reason == "end_turn"
    assert readme in agent.client.reads
    assert "Unsaved hello." in fake_llm.requests[1].body["messages"][-1]["content"]
    assert agent.client.writes == [(readme, "# Demo\n\nSaved hi.\n")]
    assert (ws_root / "README.md").read_text() == "# Demo\n\nSaved hi.\n"


async def test_a_path_outside_the_workspace_is_never_asked_of_the_client(
    karyi_acp: Start, fake_llm: FakeModelServer, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("private\n")
    fake_llm.script(
        Reply(text=f'<tools><read><file src="{outside}"/></read></tools>'), Reply(text="No.")
    )
    agent = await karyi_acp(fs=True)
    sid = await agent.new_session()
    await agent.say(sid, "read it")
    assert str(outside) not in agent.client.reads
    assert "private" not in fake_llm.requests[1].body["messages"][-1]["content"]
