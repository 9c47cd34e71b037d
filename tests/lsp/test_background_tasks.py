"""Background tasks over LSP: started, followed through `karyi/taskUpdate`, a waiting task
answered alone, reviewed (diff and file texts), applied and discarded."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from karyi.agent.background.worktrees import branch_exists, git
from karyi.core.plain_json import plain
from tests.agent.test_background import command_reply, edit_reply, model
from tests.lsp.conftest import Start, request


class Updates:
    """Every `karyi/taskUpdate`, and a wait for the first that matches."""

    def __init__(self, client: Any) -> None:
        self.seen: list[dict[str, Any]] = []
        self.event = asyncio.Event()

        @client.feature("karyi/taskUpdate")
        def on_update(params: Any) -> None:
            self.seen.append(plain(params))
            self.event.set()

    async def first(self, task_id: str, status: str) -> dict[str, Any]:
        while True:
            for update in self.seen:
                if update["id"] == task_id and update["status"] == status:
                    return update
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), 120)


def _git_repo(root: Path) -> None:
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "start"]):
        git(root, *args)


async def test_tasks_over_lsp(lsp: Start, ws_root: Path, tmp_path: Path) -> None:
    _git_repo(ws_root)
    client = await lsp(settings={"permissions": {"tools": {"command": "confirm"}}})
    updates = Updates(client)
    asks = await request(
        client,
        "karyi/startTask",
        {
            "task": "run it",
            "model": model(tmp_path, "a", [command_reply("echo hi > hi.txt"), "ok"]),
        },
    )
    edits = await request(
        client,
        "karyi/startTask",
        {
            "task": "greet",
            "model": model(tmp_path, "b", [edit_reply("README.md", "Hello.", "Hi!"), "ok"]),
        },
    )
    waiting = await updates.first(asks.id, "waiting")
    assert "echo hi" in waiting["question"]["description"]
    await updates.first(edits.id, "done")
    answered = await request(client, "karyi/answerTask", {"taskId": asks.id, "allow": True})
    assert plain(answered) == {"answered": asks.id}
    await updates.first(asks.id, "done")

    listed = await request(client, "karyi/tasks", {})
    assert {t.id: t.status for t in listed.tasks} == {asks.id: "done", edits.id: "done"}
    shown = await request(client, "karyi/task", {"taskId": edits.id})
    assert "+Hi!" in shown.diff
    assert [(f.path, f.after) for f in shown.fileTexts] == [("README.md", "# Demo\n\nHi!\n")]

    applied = await request(client, "karyi/applyTask", {"taskId": edits.id})
    assert applied.merged == ["README.md"] and applied.task.status == "applied"
    assert (ws_root / "README.md").read_text() == "# Demo\n\nHi!\n"
    discarded = await request(client, "karyi/discardTask", {"taskId": asks.id})
    assert discarded.status == "discarded" and not branch_exists(ws_root, discarded.branch)
    assert not (ws_root / "hi.txt").exists()


async def test_a_stopped_task_kept_as_a_branch(lsp: Start, ws_root: Path, tmp_path: Path) -> None:
    _git_repo(ws_root)
    client = await lsp()
    updates = Updates(client)
    replies = [command_reply("echo hi > hi.txt"), "ok"]
    asks = await request(
        client, "karyi/startTask", {"task": "run it", "model": model(tmp_path, "a", replies)}
    )
    await updates.first(asks.id, "waiting")
    stopped = await request(client, "karyi/stopTask", {"taskId": asks.id})
    assert (stopped.id, stopped.status) == (asks.id, "stopped")
    kept = await request(client, "karyi/keepTask", {"taskId": asks.id})
    assert kept.status == "kept" and branch_exists(ws_root, kept.branch)
    assert not Path(kept.worktree).exists()


async def test_bad_task_requests_get_precise_errors(lsp: Start, ws_root: Path) -> None:
    _git_repo(ws_root)
    client = await lsp()
    with pytest.raises(JsonRpcException, match="no task 'nope'"):
        await request(client, "karyi/task", {"taskId": "nope"})
    with pytest.raises(JsonRpcException, match="no commit named 'nope'"):
        await request(client, "karyi/startTask", {"task": "x", "ref": "nope"})
    with pytest.raises(JsonRpcException, match="task"):
        await request(client, "karyi/startTask", {})
