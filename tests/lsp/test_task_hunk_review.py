"""`karyi/reviewTask` and `karyi/applyTask` with the review's answer: a finished task's
files as edit proposals (hunks against the working tree), and only the accepted hunks
applied (docs/protocol.md "Background tasks")."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from karyi.agent.background.worktrees import git
from tests.agent.test_background import model
from tests.agent.test_task_hunk_review import LINES, TWO_EDITS
from tests.lsp.conftest import Start, request
from tests.lsp.test_background_tasks import Updates


async def test_a_task_reviewed_hunk_by_hunk(lsp: Start, ws_root: Path, tmp_path: Path) -> None:
    (ws_root / "long.txt").write_text(LINES)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "start"]):
        git(ws_root, *args)
    client = await lsp()
    updates = Updates(client)
    replies = [{"text": TWO_EDITS}, "ok"]
    started = await request(
        client, "karyi/startTask", {"task": "spell two", "model": model(tmp_path, "m", replies)}
    )
    await updates.first(started.id, "done")

    reviewed = await request(client, "karyi/reviewTask", {"taskId": started.id})
    (proposal,) = reviewed.files
    assert (proposal.path, proposal.uri) == ("long.txt", (ws_root / "long.txt").as_uri())
    assert proposal.original == LINES and [h.id for h in proposal.hunks] == ["h1", "h2"]
    assert reviewed.notes == [] and reviewed.task.status == "done"

    with pytest.raises(JsonRpcException, match="review again"):
        await request(client, "karyi/applyTask", {"taskId": started.id, "acceptedHunks": ["h7"]})
    applied = await request(
        client, "karyi/applyTask", {"taskId": started.id, "acceptedHunks": ["long.txt#h2"]}
    )
    assert applied.merged == ["long.txt"] and applied.task.status == "applied"
    assert (ws_root / "long.txt").read_text() == LINES.replace("line 17\n", "line seventeen\n")
