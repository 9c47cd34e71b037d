"""Background tasks in their own worktrees: isolation, apply, discard, a task that waits
for the user alone, and stop (docs/parallel.md). Real git, real files, replayed models."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from karyi.agent.background.manager import TaskError, TaskManager, create_task
from karyi.agent.background.records import (
    DISCARDED,
    DONE,
    STOPPED,
    WAITING,
    TaskBook,
    TaskRecord,
)
from karyi.agent.background.review import apply_task, discard_task, keep_task
from karyi.agent.background.worktrees import branch_exists, git
from karyi.settings import Settings, load_settings


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\ndelta\nepsilon\n")
    (root / "README.md").write_text("# Demo\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "start"]):
        git(root, *args)
    return root


def edit_reply(path: str, find: str, replace: str) -> dict[str, str]:
    body = f'<edit><file src="{path}"><find>{find}</find><replace>{replace}</replace></file></edit>'
    return {"text": f"Editing.\n<tools>{body}</tools>"}


def command_reply(command: str) -> dict[str, str]:
    return {"text": f"Running.\n<tools><command>{command}</command></tools>"}


def model(tmp: Path, name: str, replies: list[object]) -> str:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps({"replies": replies}))
    return f"script:{path}"


def settings_for(worktree: Path, model_name: str | None) -> Settings:
    """Commands always ask (so a task's question does not depend on the OS sandbox)."""
    s = load_settings(worktree, flags={"model": model_name})
    perms = {"tools": {"command": "confirm"}, "commands": {"allow": [], "deny": [], "confirm": []}}
    return s.with_values(permissions=perms)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


async def test_two_tasks_are_isolated_then_one_applied_one_discarded(
    repo: Path, tmp_path: Path
) -> None:
    (repo / "notes.txt").write_text("alpha\nbeta\ngamma\ndelta\nepsilon\nzeta (uncommitted)\n")
    manager = TaskManager(repo, settings_for, max_parallel=2)
    first = manager.start(
        "say BETA",
        model=model(tmp_path, "a", [edit_reply("notes.txt", "beta", "BETA"), "Done A."]),
    )
    second = manager.start(
        "say beta twice",
        model=model(tmp_path, "b", [edit_reply("notes.txt", "beta", "beta beta"), "Done B."]),
    )
    a, b = await manager.wait(first.id), await manager.wait(second.id)
    assert (a.status, b.status) == (DONE, DONE) and a.files == b.files == ["notes.txt"]
    assert "zeta (uncommitted)" in Path(a.worktree, "notes.txt").read_text()
    assert "BETA" in Path(a.worktree, "notes.txt").read_text()
    assert "beta beta" not in Path(a.worktree, "notes.txt").read_text()
    assert "BETA" not in Path(b.worktree, "notes.txt").read_text()
    assert (repo / "notes.txt").read_text().splitlines()[1] == "beta"
    assert "+BETA" in (TaskBook(repo).files(a.id) / "diff.patch").read_text()

    (repo / "notes.txt").write_text("alpha\nbeta\ngamma\ndelta\nEPSILON\nzeta (uncommitted)\n")
    _, result = apply_task(TaskBook(repo), a.id)
    assert result.merged == ["notes.txt"] and result.conflicts == []
    assert (
        (repo / "notes.txt")
        .read_text()
        .endswith("BETA\ngamma\ndelta\nEPSILON\nzeta (uncommitted)\n")
    )

    gone = discard_task(TaskBook(repo), b.id)
    assert gone.status == DISCARDED
    assert not Path(b.worktree).exists() and not branch_exists(repo, b.branch)
    assert b.worktree not in git(repo, "worktree", "list")


async def test_overlapping_changes_are_kept_on_both_sides(repo: Path, tmp_path: Path) -> None:
    manager = TaskManager(repo, settings_for, max_parallel=1)
    started = manager.start(
        "rename", model=model(tmp_path, "a", [edit_reply("notes.txt", "gamma", "GAMMA"), "ok"])
    )
    await manager.wait(started.id)
    (repo / "notes.txt").write_text("alpha\nbeta\ngamma (mine)\ndelta\nepsilon\n")
    _, result = apply_task(TaskBook(repo), started.id)
    text = (repo / "notes.txt").read_text()
    assert result.conflicts == ["notes.txt"]
    assert "gamma (mine)" in text and "GAMMA" in text and "<<<<<<<" in text


async def test_a_task_waiting_for_the_user_pauses_alone(repo: Path, tmp_path: Path) -> None:
    manager = TaskManager(repo, settings_for, max_parallel=2)
    waiting = asyncio.Event()
    manager.listeners.append(lambda r: waiting.set() if r.status == WAITING else None)
    asks = manager.start(
        "run it", model=model(tmp_path, "a", [command_reply("echo asked > out.txt"), "Ran."])
    )
    free = manager.start(
        "edit", model=model(tmp_path, "b", [edit_reply("README.md", "Demo", "Demo!"), "ok"])
    )
    await waiting.wait()
    assert (await manager.wait(free.id)).status == DONE
    paused = TaskBook(repo).get(asks.id)
    assert paused.status == WAITING and paused.question is not None
    assert "echo asked" in paused.question["description"]
    assert manager.answer(asks.id, allow=True)
    done = await manager.wait(asks.id)
    assert done.status == DONE and done.files == ["out.txt"]


async def test_stop_keeps_the_partial_work(repo: Path, tmp_path: Path) -> None:
    manager = TaskManager(repo, settings_for, max_parallel=1)
    waiting = asyncio.Event()
    manager.listeners.append(lambda r: waiting.set() if r.status == WAITING else None)
    replies = [edit_reply("README.md", "Demo", "Half"), command_reply("make all"), "never"]
    started = manager.start("two steps", model=model(tmp_path, "a", replies))
    await waiting.wait()
    assert manager.stop(started.id)
    stopped = await manager.wait(started.id)
    assert stopped.status == STOPPED and stopped.files == ["README.md"]
    assert "+# Half" in (TaskBook(repo).files(stopped.id) / "diff.patch").read_text()
    kept = keep_task(TaskBook(repo), stopped.id)
    assert branch_exists(repo, kept.branch) and not Path(kept.worktree).exists()
    shown = git(repo, "show", f"{kept.branch}:README.md")
    assert shown == "# Half\n"


async def test_a_check_command_is_judged_by_its_exit_status(repo: Path, tmp_path: Path) -> None:
    manager = TaskManager(repo, settings_for, max_parallel=1)
    started = manager.start(
        "edit",
        check="grep -q Demo! README.md",
        model=model(tmp_path, "a", [edit_reply("README.md", "Demo", "Demo!"), "ok"]),
    )
    record = await manager.wait(started.id)
    assert record.check_result is not None and record.check_result.passed
    assert record.check_result.exit_code == 0


def test_bad_input_changes_nothing(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="no commit named 'nope'"):
        create_task(repo, "x", ref="nope")
    with pytest.raises(TaskError, match="the task is empty"):
        create_task(repo, "  ")
    with pytest.raises(TaskError, match="not inside a git repository"):
        create_task(tmp_path, "x")
    assert TaskBook(repo).all() == []
    assert git(repo, "branch", "--list", "karyi/*") == ""


def test_a_task_from_a_ref_and_its_record_round_trip(repo: Path) -> None:
    (repo / "README.md").write_text("# changed, uncommitted\n")
    record = create_task(repo, "from main", ref="main")
    assert Path(record.worktree, "README.md").read_text() == "# Demo\n"
    assert TaskRecord.from_dict(json.loads(json.dumps(record.to_dict()))) == record
    status = subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True
    ).stdout
    assert status == " M README.md\n?? .karyi/\n"  # Karyi's own state, ignored inside
