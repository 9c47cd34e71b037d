"""Each background task is a session (docs/acp.md#background-tasks): `session/list`
shows it with its status, `session/load` replays its transcript, and a prompt there is
refused (read-only). Real git, a task run by the real runner, the real `karyi acp`."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError

from karyi.agent.background.manager import TaskManager
from karyi.agent.background.worktrees import git
from tests.acp.conftest import Start, edit
from tests.agent.test_background import model, settings_for


async def test_a_task_is_a_read_only_session(
    karyi_acp: Start, ws_root: Path, tmp_path: Path
) -> None:
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "start"]):
        git(ws_root, *args)
    manager = TaskManager(ws_root, settings_for, max_parallel=1)
    replies = [{"text": edit("README.md", "Hello.", "Hi!")}, "Greeted."]
    started = manager.start("Greet warmly\nin the README", model=model(tmp_path, "m", replies))
    task = await manager.wait(started.id)
    assert task.status == "done" and task.session_id

    acp = await karyi_acp()
    listed = await acp.conn.list_sessions(cwd=str(ws_root))
    (info,) = [s for s in listed.sessions if s.session_id == task.session_id]
    assert (info.title, info.cwd) == ("Background task (done): Greet warmly", str(ws_root))
    assert info.field_meta == {
        "karyi": {
            "taskId": task.id,
            "status": "done",
            "branch": task.branch,
            "worktree": task.worktree,
            "readOnly": True,
        }
    }

    await acp.conn.load_session(cwd=str(ws_root), session_id=task.session_id, mcp_servers=[])
    client = acp.client
    assert client.of("user_message_chunk")[0].content.text.startswith("Greet warmly")
    (call,) = client.of("tool_call")
    assert (call.kind, call.status) == ("edit", "completed")
    assert "Greeted." in client.message_text()
    with pytest.raises(RequestError) as refused:
        await acp.say(task.session_id, "and now say bye")
    assert refused.value.code == -32600 and "read-only" in str(refused.value.data)
    assert (ws_root / "README.md").read_text() == "# Demo\n\nHello.\n"  # the user's tree
