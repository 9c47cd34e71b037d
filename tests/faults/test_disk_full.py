"""A full or read-only disk under the session store: the turn still runs, and the user is
told in one sentence that this session is not being saved; a session that cannot be read
is refused in one sentence. Never a traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from karyi.agent.events import Notice
from tests.agent.test_agent_e2e import Rig, rig, rigs
from tests.faults.disks import fill, full_tmpfs, karyi
from tests.lsp.conftest import Start, request, wait_for_event
from tests.support.fake_model_server import FakeModelServer

__all__ = ["rigs"]


def one_sentence(run: subprocess.CompletedProcess[str]) -> str:
    assert run.returncode == 1
    assert "Traceback" not in run.stderr and "Error:" not in run.stderr
    [line] = run.stderr.strip().splitlines()
    return line


def answered_unsaved(run: subprocess.CompletedProcess[str]) -> str:
    """The turn's answer came; the one notice line that says the session is not saved."""
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "The answer."
    assert "Traceback" not in run.stderr and "Error" not in run.stderr
    [line] = [line for line in run.stderr.splitlines() if "not being saved" in line]
    return line


def test_disk_refuses_writes_at_karyi_run_start_the_turn_runs_unsaved(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    fake_llm.script("The answer.")
    run = karyi(
        ws_root, "run", "--model", "openai:gpt-4.1", "hi", limit=True, model_url=fake_llm.openai_url
    )
    assert answered_unsaved(run) == (
        f"ℹ This session is not being saved: could not open the session store in "
        f"{ws_root}/.karyi/sessions.db: the file size limit is reached; free some space or "
        f"make {ws_root}/.karyi writable, then try again"
    )


def test_disk_refuses_writes_when_karyi_run_resumes_a_session(ws_root: Path) -> None:
    (ws_root / ".karyi").mkdir()
    (ws_root / ".karyi" / ".gitignore").write_text("*\n")
    line = one_sentence(
        karyi(ws_root, "run", "--model", "openai:gpt-4.1", "--session", "abc", "hi", limit=True)
    )
    assert line.startswith(
        f"karyi: error: could not open the session store in {ws_root}/.karyi/sessions.db: "
    )


def test_disk_full_on_a_tmpfs_at_karyi_run_start_the_turn_runs_unsaved(
    tmp_path: Path, fake_llm: FakeModelServer
) -> None:
    fake_llm.script("The answer.")
    with full_tmpfs(tmp_path) as disk:
        (disk / "README.md").write_text("hi\n")
        fill(disk)
        run = karyi(disk, "run", "--model", "openai:gpt-4.1", "hi", model_url=fake_llm.openai_url)
    line = answered_unsaved(run)
    assert "could not open the session store" in line and "the disk is full" in line


async def test_disk_fills_during_a_turn_the_turn_ends_unsaved(
    rigs: list[Rig], fake_llm: FakeModelServer, tmp_path: Path
) -> None:
    with full_tmpfs(tmp_path) as disk:
        (disk / "README.md").write_text("Hello.\n")
        r = rig(rigs, disk, fake_llm, dialect="toolsxml", profile="karyi")
        conv = r.runtime.conversation()  # stored: the disk had room when it started
        fill(disk)
        fake_llm.script('<tools><read><file src="README.md"/></read></tools>', "The answer.")
        try:
            result = await r.agent(conv=conv).run("read it")
        finally:
            r.runtime.close()  # the disk can be unmounted only once nothing holds it
    assert result.final_answer == "The answer."
    [notice] = [e for e in r.events if isinstance(e, Notice) and e.topic == "storage"]
    assert notice.message.startswith(
        f"This session is not being saved: could not save the session in {disk}/.karyi/"
    )
    assert "the disk is full" in notice.message


async def test_disk_full_on_a_tmpfs_in_the_language_server(
    lsp: Start, fake_llm: FakeModelServer, tmp_path: Path
) -> None:
    from pygls.exceptions import JsonRpcException

    fake_llm.script("The answer.")
    with full_tmpfs(tmp_path) as disk:
        (disk / "README.md").write_text("hi\n")
        fill(disk)
        client = await lsp(root=disk)
        with pytest.raises(JsonRpcException) as refused:  # the list needs the store
            await request(client, "karyi/sessions", {})
        result = await request(client, "karyi/chat", {"message": "hi"})
        notice = await wait_for_event(client, "notice")
        await client.shutdown_session()
        await client.stop()
    message = refused.value.message
    assert message.startswith(f"could not open the session store in {disk}/.karyi/sessions.db: ")
    assert "the disk is full" in message and "OperationalError" not in message
    assert result.finalAnswer == "The answer."
    assert (
        notice["topic"] == "storage"
        and notice["message"] == f"This session is not being saved: {message}"
    )
