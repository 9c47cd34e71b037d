"""The server is killed (SIGKILL) in the middle of an 8-file edit, at every point: the next
start rolls the edit back whole, says so, and the session resumes.

The kill point is exact without any hook in Karyi: `strace` (ptrace) sends SIGKILL when
`karyi run`'s main thread enters its Nth rename, the one that would put file N in
place, so files 1..N-1 are new and N..8 old when it dies. The journal is then the only
thing that can tell which files belong to the cut-off edit.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.conftest import Start
from tests.support.fake_model_server import FakeModelServer

FILES = [f"f{i}.txt" for i in range(1, 9)]
PAIRS = "".join(f'<file src="{f}"><find>old</find><replace>new</replace></file>' for f in FILES)
EDIT = f"Editing all eight.\n<tools><edit>{PAIRS}</edit></tools>"
RENAME = "?rename,?renameat,?renameat2"


def strace() -> str:
    """The strace binary, or skip where it is missing or ptrace is not allowed."""
    found = shutil.which("strace")
    if found is None:
        pytest.skip("strace is not installed (make test installs it)")
    tried = subprocess.run([found, "-qq", "-o", "/dev/null", "true"], capture_output=True)
    if tried.returncode != 0:
        pytest.skip(f"ptrace is not allowed here: {tried.stderr.decode().strip()}")
    return found


def karyi_run(
    root: Path, fake: FakeModelServer, *args: str, kill_at_rename: int | None = None
) -> subprocess.CompletedProcess[str]:
    """`karyi run ARGS` in `root` against the fake model; killed at its Nth rename."""
    env = {
        **os.environ,
        "OPENAI_API_KEY": "sk-test",
        "KARYI_BASE_URL": fake.openai_url,
    }
    command = [sys.executable, "-m", "karyi", "run", "--model", "openai:gpt-4.1", "--yes", *args]
    if kill_at_rename is not None:
        inject = f"inject={RENAME}:signal=KILL:when={kill_at_rename}"
        command = [
            strace(),
            "-qq",
            "-o",
            "/dev/null",
            "-e",
            f"trace={RENAME}",
            "-e",
            inject,
            *command,
        ]
    return subprocess.run(
        command,
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        start_new_session=True,
        timeout=120,
    )


def contents(root: Path) -> list[str]:
    return [(root / f).read_text() for f in FILES]


@pytest.mark.parametrize("n", range(1, 9))
def test_killed_mid_edit_then_the_next_start_rolls_the_edit_back_and_says_so(
    n: int, tmp_path: Path, fake_llm: FakeModelServer
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    for i, name in enumerate(FILES, 1):
        (root / name).write_text(f"value {i} = old\n")
    old = contents(root)
    fake_llm.script(EDIT)
    killed = karyi_run(root, fake_llm, "make every value new", kill_at_rename=n)
    assert killed.returncode == -signal.SIGKILL, killed.stderr  # strace dies as its tracee did
    now = contents(root)
    assert now[: n - 1] == [t.replace("old", "new") for t in old[: n - 1]]
    assert now[n - 1 :] == old[n - 1 :]  # cut off exactly before file n was put in place
    [journal] = (root / ".karyi" / "journal").iterdir()
    session = re.search(r"session ([0-9a-f]+)", killed.stderr)
    assert session is not None, killed.stderr

    fake_llm.script("Nothing was changed; I will start again.")
    again = karyi_run(root, fake_llm, "--session", session[1], "what happened?")
    assert again.returncode == 0, again.stderr
    assert contents(root) == old  # all old: the set is whole again
    assert not journal.exists()
    restored = ", ".join(reversed(FILES[: n - 1]))
    back = (
        f"{n - 1} file{'s' if n != 2 else ''} put back as they were before the edit: {restored}; "
    )
    told = "Karyi undid an edit that was cut off when it stopped (process "
    [line] = [line for line in again.stderr.splitlines() if told in line]
    said = f"to keep it all-or-nothing: {back if n > 1 else ''}1 file it had"
    assert line.endswith(f"{said} not changed yet."), line
    # the session resumed: the model is sent the conversation the kill cut off, and told
    sent = json.dumps(fake_llm.requests[-1].body)
    assert "make every value new" in sent
    assert f"Note: {told}" in sent and "Read those files again before relying on them." in sent
    assert "Nothing was changed; I will start again." in again.stdout


async def test_killed_mid_edit_then_the_language_server_says_so_when_it_starts(
    lsp: Start, ws_root: Path
) -> None:
    from tests.workspace.test_write_ahead import EDIT as WRITES
    from tests.workspace.test_write_ahead import NAMES, OLD, crashed_call, texts

    crashed_call(ws_root, WRITES)  # a process that wrote three files and died
    client = await lsp()
    await client.wait_for_notification("window/showMessage")
    [shown] = client.messages
    assert shown.type == types.MessageType.Warning
    assert shown.message.startswith(
        "Karyi undid an edit that was cut off when it stopped (process "
    )
    assert shown.message.endswith(
        "2 files put back as they were before the edit: src/main.py, README.md; "
        "1 file created by the edit and removed: src/new.py."
    )
    assert texts(ws_root, *NAMES) == OLD
