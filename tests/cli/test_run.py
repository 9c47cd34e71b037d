"""`karyi run` as a user runs it: a real process, a replayed model, real files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

KARYI = [sys.executable, "-m", "karyi"]


def script(tmp_path: Path, replies: list[object], **top: object) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"replies": replies, **top}))
    return path


def run(
    args: list[str], *, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        KARYI + args,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        start_new_session=True,
    )


READ = {"text": 'Reading.\n<tools><read><file src="README.md"/></read></tools>'}


def test_a_task_runs_to_the_answer(ws_root: Path, tmp_path: Path) -> None:
    s = script(tmp_path, [READ, {"expect": "Hello.", "text": "The README greets you."}])
    proc = run(
        ["run", "--workspace", str(ws_root), "--model", f"script:{s}", "what is in the README?"]
    )
    assert proc.returncode == 0, proc.stderr
    assert "The README greets you." in proc.stdout
    assert "● Read README.md" in proc.stderr and "✓ read" in proc.stderr
    assert "(replay)" in proc.stderr and "end turn · 2 step(s)" in proc.stderr


def test_json_events_and_continuing_a_session(ws_root: Path, tmp_path: Path) -> None:
    s = script(tmp_path, ["First."])
    proc = run(["run", "--workspace", str(ws_root), "--model", f"script:{s}", "--json", "hi"])
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[0]["type"] == "turnStarted"
    assert events[-1]["type"] == "turnFinished" and events[-1]["finalAnswer"] == "First."
    sid = events[0]["sessionId"]
    s2 = script(tmp_path, [{"expect": "again", "text": "Second."}])
    again = run(
        [
            "run",
            "--workspace",
            str(ws_root),
            "--model",
            f"script:{s2}",
            "--session",
            sid,
            "--json",
            "again",
        ]
    )
    assert json.loads(again.stdout.splitlines()[-1])["finalAnswer"] == "Second."
    missing = run(
        ["run", "--workspace", str(ws_root), "--model", f"script:{s2}", "--session", "nope", "x"]
    )
    assert missing.returncode == 2 and "no session 'nope'" in missing.stderr


def test_without_a_terminal_confirmations_are_refused_and_the_model_told(
    ws_root: Path, tmp_path: Path, _isolated_config: Path
) -> None:
    (_isolated_config / "settings.json").write_text(
        '{"permissions": {"tools": {"read": "confirm"}}}'
    )
    s = script(tmp_path, [READ, {"expect": "rerun with --yes", "text": "I could not read it."}])
    proc = run(["run", "--workspace", str(ws_root), "--model", f"script:{s}", "read"])
    assert proc.returncode == 0, proc.stderr
    assert "✗ read  rejected" in proc.stderr


def test_missing_api_key_is_a_usage_error(ws_root: Path) -> None:
    env = {"OPENAI_API_KEY": "", "KARYI_API_KEY": ""}
    proc = run(["run", "--workspace", str(ws_root), "--model", "openai:gpt-4.1", "hi"], env=env)
    assert proc.returncode == 2
    assert "no API key for openai:gpt-4.1: set OPENAI_API_KEY or KARYI_API_KEY" in proc.stderr


def test_empty_task_is_a_usage_error(ws_root: Path) -> None:
    proc = run(["run", "--workspace", str(ws_root), "-"], stdin="  ")
    assert proc.returncode == 2 and "the task is empty" in proc.stderr


@pytest.mark.parametrize("answer", ["y", "f"])
def test_approval_on_a_real_terminal(
    ws_root: Path, tmp_path: Path, _isolated_config: Path, answer: str
) -> None:
    (_isolated_config / "settings.json").write_text(
        '{"permissions": {"tools": {"read": "confirm"}}}'
    )
    expect = "Hello." if answer == "y" else "use the docs folder"
    s = script(tmp_path, [READ, {"expect": expect, "text": "Done."}])
    child = pexpect.spawn(
        sys.executable,
        ["-m", "karyi", "run", "--workspace", str(ws_root), "--model", f"script:{s}", "read"],
        env={**os.environ},
        encoding="utf-8",
        timeout=60,
    )
    child.expect_exact("Allow? [y]es / [a]lways this session / [n]o / [f]eedback: ")
    child.sendline(answer)
    if answer == "f":
        child.expect_exact("Feedback for the model: ")
        child.sendline("use the docs folder")
    child.expect_exact("Done.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_ctrl_c_cancels_the_turn(ws_root: Path, tmp_path: Path) -> None:
    s = script(tmp_path, [{"text": "word " * 2000}], delay=0.05, chunk=5)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "karyi", "run", "--workspace", str(ws_root), "--model", f"script:{s}", "talk"],
        env={**os.environ},
        encoding="utf-8",
        timeout=60,
    )
    child.expect_exact("word word")
    child.kill(signal.SIGINT)
    child.expect_exact("cancelled")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130


def test_a_secret_written_into_a_file_reaches_no_stream_or_store(
    ws_root: Path, tmp_path: Path
) -> None:
    env = {"KARYI_CONFIG_DIR": str(tmp_path / "config")}
    run(["var", "set", "DB_PASSWORD"], stdin="pw-9f8e7d6c5b4a", env=env)
    edit = (
        'Configuring.\n<tools><edit><file src="app.env"><find></find>'
        "<replace>DB_PASSWORD=$KARYI{DB_PASSWORD}\n</replace></file></edit></tools>"
    )
    s = script(tmp_path, [edit, "Done."])
    proc = run(
        ["run", "--workspace", str(ws_root), "--model", f"script:{s}", "--yes", "--json", "go"],
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert (ws_root / "app.env").read_text() == "DB_PASSWORD=pw-9f8e7d6c5b4a\n"
    changed = [json.loads(line) for line in proc.stdout.splitlines()]
    assert any(e["type"] == "fileChanged" for e in changed)
    assert "pw-9f8e7d6c5b4a" not in proc.stdout + proc.stderr
    assert "DB_PASSWORD=$KARYI{DB_PASSWORD}" in proc.stdout
    stored = b"".join(p.read_bytes() for p in (ws_root / ".karyi").rglob("*") if p.is_file())
    assert b"pw-9f8e7d6c5b4a" not in stored


def test_the_rules_in_force_are_printed_first_and_init_asks_for_agents_md(
    ws_root: Path, tmp_path: Path
) -> None:
    (ws_root / "AGENTS.md").write_text("Run the tests.\n")
    s = script(tmp_path, [{"expect": "Write an AGENTS.md file", "text": "Written."}])
    proc = run(["run", "--workspace", str(ws_root), "--model", f"script:{s}", "/init"])
    assert proc.returncode == 0, proc.stderr
    first = proc.stderr.splitlines()[:2]
    assert first[1] == f"rules · {ws_root.resolve() / 'AGENTS.md'} (project)"


def test_an_edit_that_breaks_the_code_is_followed_by_ruffs_diagnostic(
    ws_root: Path, tmp_path: Path
) -> None:
    edit = (
        "<tools><edit><file src=\"src/main.py\"><find>print('hi')</find>"
        "<replace>print(greeting)</replace></file></edit></tools>"
    )
    told = "- src/main.py:1:7: error: Undefined name `greeting` (Ruff F821)"
    s = script(
        tmp_path,
        [
            '<tools><read><file src="src/main.py"/></read></tools>',
            edit,
            {"expect": ["New problems after this edit (ruff server)", told], "text": "Fixing."},
        ],
    )
    proc = run(["run", "--workspace", str(ws_root), "--model", f"script:{s}", "--yes", "greet"])
    assert proc.returncode == 0, proc.stderr
    assert "Fixing." in proc.stdout


def test_two_workspace_folders_grep_finds_both_and_a_write_lands_in_the_second(
    tmp_path: Path,
) -> None:
    api, web = tmp_path / "api", tmp_path / "web"
    for folder, name in ((api, "app.py"), (web, "app.ts")):
        (folder / "src").mkdir(parents=True)
        (folder / "src" / name).write_text("# TODO: greet\n")

    def call(name: str, params: dict[str, object]) -> str:
        body = json.dumps([{"id": name, "name": name, "parameters": params}])
        return f"<tools>{body}</tools>"

    s = script(
        tmp_path,
        [
            {
                "expect": ["Workspace folders: api = ", "web = "],
                "text": call("grep", {"pattern": "TODO"}),
            },
            {
                "expect": ['\\"file\\": \\"api/src/app.py', '\\"file\\": \\"web/src/app.ts'],
                "text": call("write_file", {"file_path": "web/src/hello.ts", "content": "hi\n"}),
            },
            {"expect": "web/src/hello.ts", "text": "<final_answer>Done.</final_answer>"},
        ],
    )
    folders = ["--workspace", str(api), "--workspace", str(web)]
    args = ["run", *folders, "--model", f"script:{s}", "--dialect", "agentxml"]
    proc = run([*args, "--profile", "vecli", "--yes", "find the TODOs"])
    assert proc.returncode == 0, proc.stderr
    assert (web / "src" / "hello.ts").read_text() == "hi\n"
    assert not (api / "web").exists()


PLAN_EDIT = {
    "text": "<tools><edit><file src=\"src/main.py\"><find>print('hi')</find>"
    "<replace>print('hello')</replace></file></edit></tools>"
}


def test_plan_mode_refuses_an_edit_then_act_carries_the_plan(ws_root: Path, tmp_path: Path) -> None:
    s = script(
        tmp_path,
        [
            PLAN_EDIT,
            {"expect": "not available in plan mode", "text": "1. greet with hello"},
            {
                "expect": "Carry out this plan, agreed in plan mode:\n\n1. greet with hello",
                **PLAN_EDIT,
            },
            {"text": "Done."},
        ],
    )
    argv = ["-m", "karyi", "run", "--workspace", str(ws_root), "--model", f"script:{s}"]
    child = pexpect.spawn(
        sys.executable,
        [*argv, "--yes", "--mode", "plan", "say hello"],
        env={**os.environ},
        encoding="utf-8",
        timeout=60,
    )
    child.expect_exact("plan mode · only reading tools")
    child.expect_exact("1. greet with hello")
    child.expect_exact("Plan ready. /act carries it out")
    assert (ws_root / "src/main.py").read_text() == "print('hi')\n"
    child.sendline("/act")
    child.expect_exact("mode: act")
    child.expect_exact("Done.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert (ws_root / "src/main.py").read_text() == "print('hello')\n"


def test_plan_mode_without_a_terminal_ends_after_the_plan(ws_root: Path, tmp_path: Path) -> None:
    s = script(tmp_path, [{"text": "1. read\n2. fix"}])
    proc = run(
        [
            "run",
            "--workspace",
            str(ws_root),
            "--model",
            f"script:{s}",
            "--mode",
            "plan",
            "--json",
            "x",
        ]
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[0] == {
        "type": "mode",
        "sessionId": events[1]["sessionId"],
        "mode": "plan",
        "plan": "",
    }
    assert events[1]["type"] == "turnStarted" and events[1]["mode"] == "plan"
    assert events[-1]["finalAnswer"] == "1. read\n2. fix"


def test_a_custom_command_expands_in_karyi_run(ws_root: Path, tmp_path: Path) -> None:
    folder = ws_root / ".karyi" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text("description: Review a file\nReview $ARGUMENTS for bugs.")
    s = script(tmp_path, [{"expect": "Review src/main.py for bugs.", "text": "No bugs."}])
    proc = run(
        ["run", "--workspace", str(ws_root), "--model", f"script:{s}", "/review", "src/main.py"]
    )
    assert proc.returncode == 0, proc.stderr
    assert "No bugs." in proc.stdout


def test_continuing_a_session_shows_where_it_stood(ws_root: Path, tmp_path: Path) -> None:
    s = script(tmp_path, [READ, {"expect": "Hello.", "text": "The README greets you."}])
    first = run(["run", "--workspace", str(ws_root), "--model", f"script:{s}", "--json", "hi"])
    sid = json.loads(first.stdout.splitlines()[0])["sessionId"]
    s2 = script(tmp_path, [{"expect": "again", "text": "Second."}])

    again = run(
        ["run", "--workspace", str(ws_root), "--model", f"script:{s2}", "--session", sid, "again"]
    )

    assert again.returncode == 0, again.stderr
    past = again.stderr.split("earlier in this session (1 turn(s))", 1)[1]
    assert "[1] › hi" in past and "Reading." in past and "✓ read" in past
    assert "The README greets you." in past
    assert "<tools" not in past and "tools_result" not in past


def test_rewind_takes_the_code_and_the_conversation_back(ws_root: Path, tmp_path: Path) -> None:
    from karyi.protocol import get_dialect

    params = {"files": [{"src": "new.txt", "pairs": [{"find": "", "replace": "made\n"}]}]}
    create = get_dialect("toolsxml").format_call("edit", params)
    s = script(tmp_path, [{"text": f"Creating.\n{create}"}, {"text": "Created."}])
    first = run(
        ["run", "--workspace", str(ws_root), "--model", f"script:{s}", "--json", "--yes", "make"]
    )
    assert (ws_root / "new.txt").read_text() == "made\n", first.stderr
    sid = json.loads(first.stdout.splitlines()[0])["sessionId"]
    s2 = script(tmp_path, [{"text": "Fresh start."}])
    rest = ["--workspace", str(ws_root), "--model", f"script:{s2}", "--session", sid]

    again = run(["run", *rest, "--rewind", "1", "what now?"])

    assert again.returncode == 0, again.stderr
    assert not (ws_root / "new.txt").exists()
    assert "↶ rewound to before turn 1; 1 turn(s) out of the conversation; 1 file(s) restored" in (
        again.stderr
    )
    assert "[1] › make" not in again.stderr
    bad = run(["run", *rest, "--rewind", "9", "x"])
    assert bad.returncode == 2 and "--rewind 9: this session's turns are 1 to 1" in bad.stderr
