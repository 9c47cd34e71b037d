"""`karyi task` as a user runs it: real processes, a detached runner, real git."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from karyi.agent.background.worktrees import branch_exists, git
from karyi.shell.procs import wait_gone
from tests.agent.test_background import command_reply, edit_reply, make_repo, model

KARYI = [sys.executable, "-m", "karyi"]


def karyi(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*KARYI, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )


@pytest.fixture
def repo(tmp_path: Path, _isolated_config: Path) -> Iterator[Path]:
    """A repository; after the test, the detached runner has let go of it."""
    (_isolated_config / "settings.json").write_text(
        '{"permissions": {"tools": {"command": "confirm"}}}'
    )
    root = make_repo(tmp_path / "repo")
    yield root
    lock = root / ".karyi" / "tasks" / "runner.lock"
    if lock.exists():
        with lock.open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # waits while a runner still holds it


def test_start_wait_list_show_apply(repo: Path, tmp_path: Path) -> None:
    m = model(tmp_path, "a", [edit_reply("notes.txt", "beta", "BETA"), "Done."])
    started = karyi(
        "task",
        "start",
        "--workspace",
        str(repo),
        "--model",
        m,
        "--check",
        "grep -q BETA notes.txt",
        "--wait",
        "--json",
        "shout beta",
    )
    assert started.returncode == 0, started.stderr
    record = json.loads(started.stdout)
    assert record["status"] == "done" and record["files"] == ["notes.txt"]
    assert record["check_result"]["passed"] is True
    assert (repo / "notes.txt").read_text().splitlines()[1] == "beta"

    listed = karyi("task", "list", "--workspace", str(repo))
    assert record["id"] in listed.stdout and "done" in listed.stdout
    shown = karyi("task", "show", "--workspace", str(repo), record["id"][:-2], "--diff")
    assert "+BETA" in shown.stdout and "check: grep -q BETA notes.txt: passed" in shown.stdout

    applied = karyi("task", "apply", "--workspace", str(repo), record["id"])
    assert applied.returncode == 0 and "applied notes.txt" in applied.stdout
    assert (repo / "notes.txt").read_text().splitlines()[1] == "BETA"
    again = karyi("task", "apply", "--workspace", str(repo), record["id"])
    assert again.returncode == 2 and "was applied already" in again.stderr


def test_a_waiting_task_is_answered_or_stopped_from_the_cli(repo: Path, tmp_path: Path) -> None:
    m = model(tmp_path, "a", [command_reply("echo one > one.txt"), command_reply("false"), "x"])
    started = karyi("task", "start", "--workspace", str(repo), "--model", m, "--json", "go")
    task_id = json.loads(started.stdout)["id"]
    waits = _wait_for_question(repo, task_id)
    assert "echo one" in waits["question"]["description"]
    assert karyi("task", "answer", "--workspace", str(repo), task_id, "yes").returncode == 0
    second = _wait_for_question(repo, task_id, after="echo one")
    assert "false" in second["question"]["description"]
    stopped = karyi("task", "stop", "--workspace", str(repo), task_id, "--wait")
    assert stopped.returncode == 0 and "stopped" in stopped.stdout, stopped.stderr
    shown = json.loads(karyi("task", "show", "--workspace", str(repo), task_id, "--json").stdout)
    assert shown["status"] == "stopped" and shown["files"] == ["one.txt"]
    discarded = karyi("task", "discard", "--workspace", str(repo), task_id)
    assert discarded.returncode == 0
    assert not branch_exists(repo, shown["branch"]) and not Path(shown["worktree"]).exists()
    assert git(repo, "status", "--porcelain") == "?? .karyi/\n"


def test_a_killed_runners_task_is_interrupted_and_told_once(repo: Path, tmp_path: Path) -> None:
    m = model(tmp_path, "a", [edit_reply("notes.txt", "beta", "BETA"), command_reply("true"), "x"])
    started = karyi("task", "start", "--workspace", str(repo), "--model", m, "--json", "go")
    task_id = json.loads(started.stdout)["id"]
    waiting = _wait_for_question(repo, task_id)  # its edit made, its runner alive
    runner = int(str(waiting["runner_pid"]))
    os.kill(runner, signal.SIGKILL)
    wait_gone([runner], 60)  # its exit, as an event (a pidfd)

    listed = karyi("task", "list", "--workspace", str(repo), "--json")
    (record,) = json.loads(listed.stdout)
    assert (record["status"], record["files"]) == ("interrupted", ["notes.txt"])
    assert "1 background task was interrupted" in listed.stderr and task_id in listed.stderr
    again = karyi("task", "list", "--workspace", str(repo))
    assert "interrupted" in again.stdout and again.stderr == ""
    applied = karyi("task", "apply", "--workspace", str(repo), task_id)
    assert applied.returncode == 0 and (repo / "notes.txt").read_text().splitlines()[1] == "BETA"


def _wait_for_question(repo: Path, task_id: str, after: str = "") -> dict[str, object]:
    """The record once the task waits on a question (not the one about `after`): the
    watch on the record wakes on every save."""
    from watchfiles import watch

    folder = repo / ".karyi" / "tasks"
    for _ in watch(folder, rust_timeout=1000, yield_on_timeout=True, recursive=False):
        record = json.loads((folder / f"{task_id}.json").read_text())
        question = record.get("question")
        if question and not (after and after in question["description"]):
            return dict(record)
        assert record["status"] in ("queued", "running", "waiting"), record
    raise AssertionError("unreachable")


def test_bad_input_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    bad_ref = karyi("task", "start", "--workspace", str(repo), "--ref", "nope", "x")
    assert bad_ref.returncode == 2 and "no commit named 'nope'" in bad_ref.stderr
    missing = karyi("task", "show", "--workspace", str(repo), "zzz")
    assert missing.returncode == 2 and "no task 'zzz'" in missing.stderr
    not_git = karyi("task", "list", "--workspace", str(tmp_path))
    assert not_git.returncode == 2 and "not inside a git repository" in not_git.stderr
