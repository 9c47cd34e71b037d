"""`karyi batch` as a user runs it: a JSON-lines file, a local repository and a URL,
a malformed line, the report, and a rerun that skips what is done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from karyi.agent.background.worktrees import git
from tests.agent.test_background import edit_reply, make_repo, model

KARYI = [sys.executable, "-m", "karyi"]


def batch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*KARYI, "batch", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "250"},
    )


def test_a_batch_runs_reports_and_reruns(tmp_path: Path, _isolated_config: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "notes.txt").write_text("changed by the user, uncommitted\n")
    origin = make_repo(tmp_path / "origin")
    lines = [
        {
            "repo": "repo",
            "task": f"number {n}",
            "check": f"grep -q ALPHA{n} notes.txt",
            "model": model(
                tmp_path, f"m{n}", [edit_reply("notes.txt", "alpha", f"ALPHA{n}"), "ok"]
            ),
        }
        for n in (1, 2)
    ]
    lines.append(
        {
            "repo": f"file://{origin}",
            "task": "remote",
            "model": model(tmp_path, "r", [edit_reply("README.md", "Demo", "Remote"), "ok"]),
        }
    )
    rows = [json.dumps(line) for line in lines]
    rows.insert(1, '{"repo": "repo", "task": 3}')
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("\n".join(rows) + "\n")

    first = batch(str(tasks), "--jobs", "2")
    assert first.returncode == 1, first.stderr  # the malformed line
    assert "tasks.jsonl: line 2: 'task' must be a string" in first.stderr
    report = json.loads((tmp_path / "tasks.report.json").read_text())
    assert report["errors"] == ["line 2: 'task' must be a string"]
    by_line = {r["line"]: r for r in report["tasks"]}
    assert sorted(by_line) == [1, 3, 4]
    for line, n in ((1, 1), (3, 2)):
        row = by_line[line]
        assert row["status"] == "done" and row["check"] is True and row["files"] == ["notes.txt"]
        assert git(repo, "show", f"{row['branch']}:notes.txt").startswith(f"ALPHA{n}\n")
    remote = by_line[4]
    assert "+# Remote" in Path(remote["patch"]).read_text()
    assert (repo / "notes.txt").read_text() == "changed by the user, uncommitted\n"
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git(repo, "worktree", "list").count("\n") == 1
    assert "number 1" in first.stdout and "passed" in first.stdout

    tasks.write_text("\n".join(r for r in rows if '"task": 3' not in r) + "\n")
    again = batch(str(tasks))
    assert again.returncode == 0, again.stderr
    assert "skipping 3 task(s) already done" in again.stderr


def test_an_unreadable_file_is_a_usage_error(tmp_path: Path) -> None:
    missing = batch(str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and "none.jsonl: No such file or directory" in missing.stderr
