"""A full or read-only disk: `karyi run` and the language server say so in one sentence."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.faults.disks import fill, full_tmpfs, karyi
from tests.lsp.conftest import Start, request


def one_sentence(run: subprocess.CompletedProcess[str]) -> str:
    assert run.returncode == 1
    assert "Traceback" not in run.stderr and "Error:" not in run.stderr
    [line] = run.stderr.strip().splitlines()
    return line


def test_disk_refuses_writes_at_karyi_run_start(ws_root: Path) -> None:
    line = one_sentence(karyi(ws_root, "run", "--model", "openai:gpt-4.1", "hi", limit=True))
    assert line == (
        f"karyi: error: could not open the session store in {ws_root}/.karyi/sessions.db: "
        f"the file size limit is reached; free some space or make {ws_root}/.karyi writable, "
        "then try again"
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


def test_disk_full_on_a_tmpfs_at_karyi_run_start(tmp_path: Path) -> None:
    with full_tmpfs(tmp_path) as disk:
        (disk / "README.md").write_text("hi\n")
        fill(disk)
        line = one_sentence(karyi(disk, "run", "--model", "openai:gpt-4.1", "hi"))
    assert "could not open the session store" in line and "the disk is full" in line


async def test_disk_full_on_a_tmpfs_in_the_language_server(lsp: Start, tmp_path: Path) -> None:
    import pytest
    from pygls.exceptions import JsonRpcException

    with full_tmpfs(tmp_path) as disk:
        (disk / "README.md").write_text("hi\n")
        fill(disk)
        client = await lsp(root=disk)
        with pytest.raises(JsonRpcException) as refused:
            await request(client, "karyi/sessions", {})
        await client.shutdown_session()
        await client.stop()
    message = refused.value.message
    assert message.startswith(f"could not open the session store in {disk}/.karyi/sessions.db: ")
    assert "the disk is full" in message and "OperationalError" not in message
