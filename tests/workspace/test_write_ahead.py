"""The write-ahead journal and its rollback: a call cut off by a crash is undone whole.

A "crashed call" is a real process that journals and writes some files through the
document store, then dies without closing its journal (`os._exit`), so the journal's
owner is really gone when the workspace recovers it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from karyi.core.errors import ToolFailure
from karyi.workspace.workspace import Workspace
from karyi.workspace.write_ahead import WriteAhead, decode_line, encode_line, journal_dir
from tests.faults.disks import no_writes

CRASHING_CALL = """
import json, os, sys
from pathlib import Path
from karyi.workspace.workspace import Workspace
from karyi.workspace.write_ahead import WriteAhead
root, writes = Path(sys.argv[1]), json.loads(sys.argv[2])
store, ahead = Workspace.open(root).documents, WriteAhead(root)
for name, text in writes:
    path = root / name
    base = store.read_optional(path, name)
    try:
        store.write(path, text, display=name, base=base, make_parents=True, ahead=ahead)
    except Exception as exc:
        print(exc)
if os.environ.get("CLOSE"):
    ahead.close()
os._exit(0)
"""


def crashed_call(
    root: Path, writes: list[tuple[str, str]], *, close: bool = False, limit: bool = False
) -> str:
    """Run a call that writes `writes` in another process, which then dies; its output."""
    env = {**os.environ, **({"CLOSE": "1"} if close else {})}
    run = subprocess.run(
        [sys.executable, "-c", CRASHING_CALL, str(root), json.dumps(writes)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=no_writes if limit else None,
    )
    return run.stdout


def journals(root: Path) -> list[Path]:
    folder = journal_dir(root)
    return sorted(folder.iterdir()) if folder.is_dir() else []


def texts(root: Path, *names: str) -> list[str | None]:
    return [(root / n).read_text() if (root / n).exists() else None for n in names]


EDIT = [("README.md", "new readme\n"), ("src/main.py", "print('new')\n"), ("src/new.py", "x\n")]
OLD = ["# Demo\n\nHello.\n", "print('hi')\n", None]
NEW = ["new readme\n", "print('new')\n", "x\n"]
NAMES = ("README.md", "src/main.py", "src/new.py")


def test_a_finished_call_leaves_no_journal(ws_root: Path) -> None:
    crashed_call(ws_root, EDIT, close=True)
    assert texts(ws_root, *NAMES) == NEW
    assert journals(ws_root) == []
    assert Workspace.open(ws_root).recover_writes() == []


def test_a_call_that_writes_nothing_creates_no_journal(ws_root: Path) -> None:
    WriteAhead(ws_root).close()
    assert not (ws_root / ".karyi").exists()


def test_a_crashed_call_is_rolled_back_whole_and_said(ws_root: Path) -> None:
    crashed_call(ws_root, EDIT)
    assert texts(ws_root, *NAMES) == NEW and len(journals(ws_root)) == 1
    ws = Workspace.open(ws_root)
    [said] = ws.recover_writes()
    assert texts(ws_root, *NAMES) == OLD
    assert journals(ws_root) == []
    assert said.startswith("Karyi undid an edit that was cut off when it stopped (process ")
    assert said.endswith(
        "to keep it all-or-nothing: 2 files put back as they were before "
        "the edit: src/main.py, README.md; 1 file created by the edit and removed: src/new.py"
    )
    assert ws.take_recovered() == f"{said}." and ws.take_recovered() is None
    assert ws.take_recovered("model") == f"{said}." and ws.take_recovered("model") is None


def test_the_same_file_written_twice_goes_back_to_its_first_content(ws_root: Path) -> None:
    crashed_call(ws_root, [("README.md", "one\n"), ("README.md", "two\n")])
    Workspace.open(ws_root).recover_writes()
    assert texts(ws_root, "README.md") == OLD[:1]


def test_a_torn_last_record_is_ignored(ws_root: Path) -> None:
    crashed_call(ws_root, EDIT[:2])
    [journal] = journals(ws_root)
    torn = encode_line({"path": str(ws_root / "src/new.py"), "before": None, "after": "00"})
    with journal.open("ab") as fh:
        fh.write(torn[: len(torn) // 2])
    [said] = Workspace.open(ws_root).recover_writes()
    assert texts(ws_root, *NAMES) == OLD
    assert "2 files put back" in said and "new.py" not in said


def test_a_damaged_line_before_the_last_restores_nothing(ws_root: Path) -> None:
    crashed_call(ws_root, EDIT)
    [journal] = journals(ws_root)
    lines = journal.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"after":"', b'"after":"0', 1)  # the checksum no longer fits
    journal.write_bytes(b"".join(lines))
    [said] = Workspace.open(ws_root).recover_writes()
    assert texts(ws_root, *NAMES) == NEW  # fail closed: nothing restored
    assert "is damaged (line 2 does not verify), so nothing was restored from it" in said
    assert [j.name for j in journals(ws_root)] == [journal.name + ".damaged"]


def test_a_live_owners_journal_is_left_alone(ws_root: Path) -> None:
    ahead = WriteAhead(ws_root)
    store = Workspace.open(ws_root).documents
    base = store.read(ws_root / "README.md", "README.md")
    store.write(ws_root / "README.md", "mine\n", display="README.md", base=base, ahead=ahead)
    assert Workspace.open(ws_root).recover_writes() == []  # this test's process is alive
    assert texts(ws_root, "README.md") == ["mine\n"]
    ahead.close()
    assert journals(ws_root) == []


def test_a_reused_pid_is_not_the_owner(ws_root: Path) -> None:
    crashed_call(ws_root, EDIT[:1])
    [journal] = journals(ws_root)
    lines = journal.read_bytes().splitlines(keepends=True)
    header = decode_line(lines[0])
    assert header is not None and isinstance(header["start"], int)
    # our own live pid, but a process that started at another time: not the owner
    lines[0] = encode_line({**header, "pid": os.getpid(), "start": header["start"] + 1})
    journal.write_bytes(b"".join(lines))
    Workspace.open(ws_root).recover_writes()
    assert texts(ws_root, "README.md") == OLD[:1]


def test_a_file_changed_since_is_left_alone_and_named(ws_root: Path) -> None:
    crashed_call(ws_root, EDIT)
    (ws_root / "src/main.py").write_text("the user's own change\n")
    [said] = Workspace.open(ws_root).recover_writes()
    assert texts(ws_root, *NAMES) == [OLD[0], "the user's own change\n", None]
    assert "1 file left alone because they changed since: src/main.py" in said


def test_a_file_the_crash_never_reached_is_left(ws_root: Path) -> None:
    crashed_call(ws_root, EDIT)
    (ws_root / "src/new.py").unlink()  # as if the crash came before this write
    [said] = Workspace.open(ws_root).recover_writes()
    assert texts(ws_root, *NAMES) == OLD
    assert said.endswith("1 file it had not changed yet")


def test_a_record_outside_the_workspace_restores_nothing(ws_root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    crashed_call(ws_root, EDIT[:1])
    [journal] = journals(ws_root)
    record = {"path": str(outside), "before": "", "after": ""}
    journal.write_bytes(journal.read_bytes() + encode_line(record) + encode_line(record))
    [said] = Workspace.open(ws_root).recover_writes()
    assert outside.read_text() == "precious\n" and texts(ws_root, "README.md") == NEW[:1]
    assert "(line 3 names a path outside the workspace)" in said


def test_a_journal_that_cannot_be_written_refuses_the_write(ws_root: Path) -> None:
    said = crashed_call(ws_root, EDIT[:1], limit=True)
    assert texts(ws_root, "README.md") == OLD[:1]
    assert said.strip() == (
        f"README.md was not written: could not write the write-ahead journal in "
        f"{journal_dir(ws_root)}/…: the file size limit is reached; free some space or make "
        f"{journal_dir(ws_root)} writable, then try again"
    )


def test_a_failed_append_is_cut_back_so_later_records_stay_readable(
    ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead = WriteAhead(ws_root)
    ahead.record(ws_root / "README.md", b"one", "README.md")
    real_fsync = os.fsync

    def full_once(fd: int) -> None:  # the disk fills while the line is flushed
        monkeypatch.setattr(os, "fsync", real_fsync)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_once)
    with pytest.raises(ToolFailure):
        ahead.record(ws_root / "src/main.py", b"two", "src/main.py")
    ahead.record(ws_root / "debug.log", b"three", "debug.log")
    assert ahead.path is not None
    lines = ahead.path.read_bytes().splitlines(keepends=True)
    assert [decode_line(line) is not None for line in lines] == [True, True, True]
    ahead.close()


def test_a_journal_copied_with_its_folder_is_not_this_workspaces(
    ws_root: Path, tmp_path: Path
) -> None:
    crashed_call(ws_root, EDIT)
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(ws_root), str(copy)], check=True)
    assert Workspace.open(copy).recover_writes() == []  # another workspace's journal
    assert texts(copy, *NAMES) == NEW and len(journals(copy)) == 1
    assert Workspace.open(ws_root).recover_writes() != [] and texts(ws_root, *NAMES) == OLD


def test_a_journal_another_key_signed_is_never_trusted(ws_root: Path, tmp_path: Path) -> None:
    """A journal shipped in a repository (or written under another user's key) names this
    workspace and a file's current bytes, to have the start write bytes of its choosing."""
    planted = "planted by the repository\n"
    (ws_root / "README.md").write_text("current\n")
    other = {**os.environ, "KARYI_CONFIG_DIR": str(tmp_path / "elsewhere")}
    forge = (
        "import base64, hashlib, json, sys\n"
        "from pathlib import Path\n"
        "from karyi.workspace.write_ahead import encode_line, journal_dir\n"
        "root = Path(sys.argv[1])\n"
        "folder = journal_dir(root); folder.mkdir(parents=True, exist_ok=True)\n"
        "after = hashlib.sha256(b'current\\n').hexdigest()\n"
        "before = base64.b64encode(sys.argv[2].encode()).decode()\n"
        "head = {'journal': 1, 'pid': 999999, 'start': 1, 'root': str(root)}\n"
        "rec = {'path': str(root / 'README.md'), 'before': before, 'after': after}\n"
        "(folder / '999999.abcd.journal').write_bytes(encode_line(head) + encode_line(rec))\n"
    )
    subprocess.run([sys.executable, "-c", forge, str(ws_root), planted], env=other, check=True)
    [said] = Workspace.open(ws_root).recover_writes()
    assert texts(ws_root, "README.md") == ["current\n"], "nothing was written from it"
    assert "does not verify" in said
