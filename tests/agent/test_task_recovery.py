"""Recovery of tasks whose process is gone (docs/parallel.md#interrupted): which tasks
are orphaned, and an interrupted task's work kept on its branch. Real git, real
processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from karyi.agent.background.manager import create_task
from karyi.agent.background.records import INTERRUPTED, QUEUED, RUNNING, TaskBook
from karyi.agent.background.recovery import claim, orphaned, process_start, recover
from karyi.agent.background.review import apply_task
from tests.agent.test_background import make_repo


def _dead_pid() -> int:
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(proc.stdout)


def test_whose_process_is_gone(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    record = create_task(repo, "x")
    assert record.status == QUEUED and not orphaned(record)  # waits for the CLI's runner
    claim(record)
    record.status = RUNNING
    assert record.runner_pid == os.getpid() and not orphaned(record)
    record.runner_start = "0"  # this pid, but another process: the pid was reused
    assert orphaned(record) or process_start(os.getpid()) is None
    record.runner_pid, record.runner_start = _dead_pid(), None
    assert orphaned(record)
    record.runner_pid = None  # running with no process named: a server of before
    assert orphaned(record)


def test_an_interrupted_task_keeps_its_work_and_is_marked_once(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    book = TaskBook(repo)
    record = create_task(repo, "say BETA")
    record.status, record.runner_pid, record.step = RUNNING, _dead_pid(), "running edit"
    book.save(record)
    notes = Path(record.worktree, "notes.txt")
    notes.write_text(notes.read_text().replace("beta", "BETA"))  # the edit before the kill

    marked = recover(book)
    assert [r.id for r in marked] == [record.id] and recover(book) == []
    kept = book.get(record.id)
    assert (kept.status, kept.step, kept.files) == (INTERRUPTED, "", ["notes.txt"])
    assert kept.error is not None and f"pid {record.runner_pid}" in kept.error
    assert "+BETA" in (book.dir / record.id / "diff.patch").read_text()
    _, result = apply_task(book, record.id)
    assert result.merged == ["notes.txt"] and "BETA" in (repo / "notes.txt").read_text()
