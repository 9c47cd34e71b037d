"""A server killed (SIGKILL) while its background task runs: the next server marks the
task `interrupted`, keeps its partial work (reviewable and appliable), and tells the user
once (docs/parallel.md#interrupted). Real server processes, the fake model server."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from karyi.agent.background.records import TaskBook
from karyi.agent.background.worktrees import git
from tests.lsp.conftest import Start, request
from tests.lsp.test_background_tasks import Updates
from tests.support.fake_model_server import FakeModelServer, Received
from tests.support.replies import Reply

EDIT = (
    'Editing.\n<tools><edit><file src="README.md">'
    "<find>Hello.</find><replace>Hi!</replace></file></edit></tools>"
)


@pytest.fixture
def held_model(fake_llm: FakeModelServer) -> Iterator[threading.Event]:
    """The model's first reply edits README.md; the next one never comes (until the
    test ends): the task is mid-turn, its edit made, when the server is killed."""
    release = threading.Event()

    def respond(received: Received) -> Reply:
        if len(fake_llm.requests) == 1:
            return Reply(text=EDIT)
        release.wait()
        return Reply(text="too late")

    fake_llm.responder = respond
    yield release
    release.set()


def _messages(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages if "interrupted" in m.message]


async def _kill(client: LanguageClient) -> None:
    """SIGKILL the server process: no shutdown, no cleanup of its own."""
    server = client._server
    assert server is not None
    server.kill()
    await server.wait()
    await client.stop()


async def test_a_killed_servers_task_is_interrupted_and_kept(
    lsp: Start, ws_root: Path, fake_llm: FakeModelServer, held_model: threading.Event
) -> None:
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "start"]):
        git(ws_root, *args)
    first = await lsp()
    updates = Updates(first)
    started = await request(first, "karyi/startTask", {"task": "greet"})
    await updates.first(started.id, "running")
    await asyncio.to_thread(fake_llm.wait_requests, 2, 120)  # the edit is made
    await _kill(first)
    stale = TaskBook(ws_root).get(started.id)
    assert stale.status == "running"

    second = await lsp()
    listed = await request(second, "karyi/tasks", {})
    assert [(t.id, t.status) for t in listed.tasks] == [(started.id, "interrupted")]
    told = _messages(second)
    assert len(told) == 1 and started.id in told[0] and "kept" in told[0]
    shown = await request(second, "karyi/task", {"taskId": started.id})
    assert shown.files == ["README.md"] and "+Hi!" in shown.diff
    assert "interrupted" in shown.error

    third = await lsp()  # told once: the next server finds it marked already
    listed = await request(third, "karyi/tasks", {})
    assert [t.status for t in listed.tasks] == ["interrupted"] and _messages(third) == []
    applied = await request(third, "karyi/applyTask", {"taskId": started.id})
    assert applied.merged == ["README.md"] and applied.task.status == "applied"
    assert (ws_root / "README.md").read_text() == "# Demo\n\nHi!\n"
