"""Background tasks over HTTP: start, show, apply, discard; refused without the shell;
precise errors for bad requests."""

from __future__ import annotations

from pathlib import Path

from karyi.agent.background.worktrees import branch_exists, git
from tests.agent.test_background import edit_reply, model
from tests.gateway.conftest import Make


def _git_repo(root: Path) -> None:
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "start"]):
        git(root, *args)


async def test_a_task_over_http(make: Make, ws_root: Path, tmp_path: Path) -> None:
    _git_repo(ws_root)
    rig = make(gateway={"enableShell": True})
    m = model(tmp_path, "a", [edit_reply("README.md", "Hello.", "Hi!"), "ok"])
    started = await rig.client.post("/agent/tasks", json={"task": "greet", "model": m})
    assert started.status_code == 200, started.text
    task_id = started.json()["id"]
    await rig.app.state.task_routes.manager.wait(task_id)
    shown = (await rig.client.get(f"/agent/tasks/{task_id[:-1]}")).json()
    assert shown["status"] == "done" and "+Hi!" in shown["diff"]
    listed = (await rig.client.get("/agent/tasks")).json()
    assert [t["id"] for t in listed["tasks"]] == [task_id]
    applied = (await rig.client.post(f"/agent/tasks/{task_id}/apply", json={})).json()
    assert applied["merged"] == ["README.md"] and (ws_root / "README.md").read_text().endswith(
        "Hi!\n"
    )
    again = await rig.client.post(f"/agent/tasks/{task_id}/apply", json={})
    assert again.status_code == 409 and "applied already" in again.json()["error"]["message"]
    gone = (await rig.client.post(f"/agent/tasks/{task_id}/discard")).json()
    assert gone["status"] == "discarded" and not branch_exists(ws_root, gone["branch"])


async def test_bad_task_requests(make: Make, ws_root: Path) -> None:
    _git_repo(ws_root)
    closed = make()
    refused = await closed.client.post("/agent/tasks", json={"task": "x"})
    assert refused.status_code == 403 and "gateway.enableShell" in refused.text
    rig = make(gateway={"enableShell": True})
    cases = [
        ({"task": 5}, "task: expected a string"),
        ({"job": "x"}, "job: unknown field"),
        ({}, "task: required"),
        ({"task": "x", "ref": "nope"}, "no commit named 'nope'"),
    ]
    for body, said in cases:
        answer = await rig.client.post("/agent/tasks", json=body)
        assert answer.status_code == 400 and said in answer.json()["error"]["message"]
    missing = await rig.client.get("/agent/tasks/nope")
    assert missing.status_code == 404 and "no task 'nope'" in missing.json()["error"]["message"]
