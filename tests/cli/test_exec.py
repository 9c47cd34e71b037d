"""`karyi exec` as a user runs it: a real process, real files."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
import pytest

from tests.support.karyi_process import run

REPLY = """Let me look.
<tools>
  <read><file src="README.md"/></read>
  <read><file src="../outside"/></read>
  <nosuch a="1"/>
</tools>
"""


def test_exec_renders_results_in_the_dialect_and_exits_1_on_failure(ws_root: Path) -> None:
    proc = run(["exec", "--workspace", str(ws_root), "-"], stdin=REPLY)
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert out.startswith("<tools_result>\n")
    assert '<result index="0" tool="read" status="ok"><![CDATA[<file src="README.md"' in out
    assert '<result index="1" tool="read" status="error" code="tool_forbidden_path">' in out
    assert '<result index="2" tool="nosuch" status="error" code="unknown_tool">' in out


def test_exec_json_output(ws_root: Path, tmp_path: Path) -> None:
    reply = tmp_path / "reply.xml"
    reply.write_text('<tools><read><file src="README.md"/></read></tools>')
    proc = run(["exec", "--workspace", str(ws_root), "--json", str(reply)])
    assert proc.returncode == 0, proc.stderr
    [item] = json.loads(proc.stdout)
    assert item == {
        "index": 0,
        "id": "call_1",
        "name": "read",
        "success": True,
        "llm_content": '<file src="README.md" lines="1-3" total="3">\n# Demo\n\nHello.\n</file>',
        "error": None,
        "data": None,
    }


@pytest.mark.parametrize(
    ("dialect", "profile", "reply"),
    [
        (
            "agentxml",
            "agentxml",
            '<tools>[{"id": "1", "name": "read_file",'
            ' "parameters": {"filePath": "README.md"}}]</tools>',
        ),
        (
            "toolcall",
            "agentxml",
            "<tool_call><name>read_file</name><params><filePath><![CDATA[README.md]]></filePath>"
            "</params></tool_call>",
        ),
        (
            "native",
            "vecli",
            '[{"id": "c1", "type": "function", "function": {"name": "read_file",'
            ' "arguments": "{\\"absolute_path\\": \\"README.md\\"}"}}]',
        ),
        (
            "native",
            "gateway",
            '[{"type": "tool_use", "id": "t1", "name": "read_file",'
            ' "input": {"path": "README.md"}}]',
        ),
    ],
)
def test_every_dialect_and_profile(ws_root: Path, dialect: str, profile: str, reply: str) -> None:
    proc = run(
        [
            "exec",
            "--workspace",
            str(ws_root),
            "--dialect",
            dialect,
            "--profile",
            profile,
            "--json",
            "-",
        ],
        stdin=reply,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [item] = json.loads(proc.stdout)
    assert item["success"] and "Hello." in item["llm_content"]


def test_agentxml_rendering(ws_root: Path) -> None:
    reply = (
        '<tools>[{"id": "7", "name": "read_file", "parameters": {"filePath": "README.md"}}]</tools>'
    )
    proc = run(
        [
            "exec",
            "--workspace",
            str(ws_root),
            "--dialect",
            "agentxml",
            "--profile",
            "agentxml",
            "-",
        ],
        stdin=reply,
    )
    body = proc.stdout.strip().removeprefix("<tools_result>").removesuffix("</tools_result>")
    [item] = json.loads(body)
    assert item["id"] == "7"
    assert json.loads(item["result"]) == {"success": True, "data": "# Demo\n\nHello.\n"}


def test_no_calls_is_not_an_error(ws_root: Path) -> None:
    proc = run(["exec", "--workspace", str(ws_root), "--json", "-"], stdin="Just prose.")
    assert (proc.returncode, proc.stdout.strip()) == (0, "[]")
    assert "no tool calls found" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["exec", "--workspace", "/nonexistent/ws", "-"],
            "--workspace /nonexistent/ws: not a directory",
        ),
        (["exec", "--profile", "vcli", "-"], "unknown profile 'vcli' (did you mean 'vecli'?)"),
        (["exec", "missing-reply.xml"], "cannot read missing-reply.xml: No such file or directory"),
        (["exec", "--dialect", "yaml", "-"], "invalid choice: 'yaml'"),
    ],
)
def test_bad_usage_exits_2_with_a_precise_message(
    ws_root: Path, args: list[str], message: str
) -> None:
    proc = run(args, stdin="", cwd=ws_root)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_settings_warnings_reach_stderr(ws_root: Path) -> None:
    (ws_root / ".karyi").mkdir()
    (ws_root / ".karyi" / "settings.json").write_text('{"maxStep": 3}')
    proc = run(["exec", "--workspace", str(ws_root), "-"], stdin="")
    assert "maxStep: unknown key, ignored (did you mean 'maxSteps'?)" in proc.stderr


def confirm_settings(tmp_path: Path) -> dict[str, str]:
    conf = tmp_path / "conf"
    conf.mkdir(exist_ok=True)
    (conf / "settings.json").write_text('{"permissions": {"tools": {"read": "confirm"}}}')
    return {"KARYI_CONFIG_DIR": str(conf)}


def test_confirmation_without_a_terminal_is_refused(ws_root: Path, tmp_path: Path) -> None:
    reply = '<tools><read><file src="README.md"/></read></tools>'
    proc = run(
        ["exec", "--workspace", str(ws_root), "--json", "-"],
        stdin=reply,
        env=confirm_settings(tmp_path),
    )
    assert proc.returncode == 1
    [item] = json.loads(proc.stdout)
    assert item["error"] == {
        "code": "rejected",
        "message": "the user rejected this read call, saying: no terminal to ask for "
        "confirmation (the user can rerun with --yes)",
    }
    yes = run(
        ["exec", "--workspace", str(ws_root), "--yes", "-"],
        stdin=reply,
        env=confirm_settings(tmp_path),
    )
    assert yes.returncode == 0


@pytest.mark.parametrize(("answer", "ok"), [("y", True), ("n", False)])
def test_confirmation_on_a_real_terminal(
    ws_root: Path, tmp_path: Path, answer: str, ok: bool
) -> None:
    reply = tmp_path / "reply.xml"
    reply.write_text('<tools><read><file src="README.md"/></read></tools>')
    env = {**os.environ, **confirm_settings(tmp_path)}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "karyi", "exec", "--workspace", str(ws_root), "--json", str(reply)],
        env=env,
        encoding="utf-8",
        timeout=30,
    )
    child.expect_exact("Read README.md")
    child.expect_exact("Allow? [y]es / [a]lways this session / [n]o / [f]eedback: ")
    child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()
    assert (child.exitstatus == 0) is ok
    assert ('"success": true' in (child.before or "")) is ok


def test_invalid_unicode_in_a_reply_is_a_precise_error_not_a_traceback(ws_root: Path) -> None:
    reply = (
        '<tools>[{"id": "1", "name": "read_\\ud800file", "parameters": {}},'
        '{"id": "2", "name": "read_file", "parameters": {"filePath": "a\\udc00.txt"}}]</tools>'
    )
    proc = run(
        ["exec", "--workspace", str(ws_root), "--dialect", "agentxml", "--profile", "agentxml"],
        stdin=reply,
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "name: invalid Unicode (a lone surrogate U+D800 at character 5)" in proc.stdout
    assert "params.filePath: invalid Unicode (a lone surrogate U+DC00" in proc.stdout
