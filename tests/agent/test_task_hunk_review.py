"""A finished task reviewed hunk by hunk (docs/parallel.md#review-hunk-by-hunk): its
files proposed as the three-way merge with the working tree as it is, and only the
accepted hunks applied. Real git, real files, a replayed model."""

from __future__ import annotations

from pathlib import Path

import pytest

from karyi.agent.background.hunk_review import apply_reviewed, review
from karyi.agent.background.manager import TaskError, TaskManager
from karyi.agent.background.records import APPLIED, TaskBook
from karyi.agent.background.worktrees import git
from tests.agent.test_background import make_repo, model, settings_for

LINES = "".join(f"line {i}\n" for i in range(1, 21))
TWO_EDITS = (
    'Editing.\n<tools><edit><file src="long.txt">'
    "<find>line 3\n</find><replace>line three\n</replace>"
    "<find>line 17\n</find><replace>line seventeen\n</replace>"
    "</file></edit></tools>"
)


async def _finished_task(repo: Path, tmp_path: Path) -> str:
    (repo / "long.txt").write_text(LINES)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "long")
    manager = TaskManager(repo, settings_for, max_parallel=1)
    started = manager.start("spell two", model=model(tmp_path, "m", [{"text": TWO_EDITS}, "ok"]))
    return (await manager.wait(started.id)).id


async def test_review_proposes_the_merge_and_applies_only_the_accepted_hunk(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo")
    task_id = await _finished_task(repo, tmp_path)
    mine = LINES.replace("line 10\n", "line ten (mine)\n")
    (repo / "long.txt").write_text(mine)  # the user's change meanwhile
    book = TaskBook(repo)

    proposals = review(book.get(task_id))
    (write,) = proposals.writes
    assert (write.display, write.before) == ("long.txt", mine)
    assert [h.new_text for h in write.diff().hunks] == ["line three\n", "line seventeen\n"]

    with pytest.raises(TaskError, match="h9"):
        apply_reviewed(book, task_id, ["h9"], {})
    assert (repo / "long.txt").read_text() == mine  # nothing written
    record, result = apply_reviewed(book, task_id, ["h1"], {})
    assert record.status == APPLIED and result.merged == ["long.txt"]
    text = (repo / "long.txt").read_text()
    assert "line three" in text and "line ten (mine)" in text and "line 17\n" in text


async def test_the_users_own_text_of_a_file_is_written(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    task_id = await _finished_task(repo, tmp_path)
    book = TaskBook(repo)
    _, result = apply_reviewed(book, task_id, None, {"long.txt": "my own\n"})
    assert result.merged == ["long.txt"] and (repo / "long.txt").read_text() == "my own\n"
