"""The command tools through the executor, as a model uses them: the command rules,
the terminal's command/input/ctrl, the one-shot shells' result shapes."""

from __future__ import annotations

import dataclasses

from karyi.tools.builtin.commands.terminal import control_byte, unescape
from karyi.tools.context import ToolContext
from tests.support.command_calls import SECRET, Recorder, call, kit, run, settings


async def test_command_rules_decide_before_anyone_is_asked(sctx: ToolContext) -> None:
    ctx = dataclasses.replace(
        sctx,
        settings=settings(
            permissions={
                "tools": {},
                "commands": {"allow": ["git status", "echo *"], "deny": ["rm *"], "confirm": []},
            }
        ),
    )
    asked = Recorder(allow=False)
    done = await run(
        ctx,
        "karyi",
        call(0, "command", command="echo allowed"),
        call(1, "command", command="echo hi; rm -rf ~"),
        call(2, "command", command="echo hi > notes.txt"),
        approver=asked,
    )
    assert done[0].result.success and done[0].result.llm_content.startswith("allowed\n")
    assert done[1].result.error is not None and done[1].result.error.code == "permission_denied"
    assert done[1].result.llm_content == (
        "`rm -rf ~` matches the deny rule `rm *` (permissions.commands.deny)"
    )
    assert done[2].result.error is not None and done[2].result.error.code == "rejected"
    assert [r.call.index for r in asked.asked] == [2]
    assert (
        asked.asked[0].reason == "needs a person to judge: output written to a file: `> notes.txt`"
    )
    assert asked.asked[0].confirmation is not None
    assert asked.asked[0].confirmation.details == "echo hi > notes.txt"


async def test_deny_rules_hold_for_text_typed_into_the_terminal(sctx: ToolContext) -> None:
    ctx = dataclasses.replace(
        sctx,
        settings=settings(
            permissions={
                "tools": {},
                "commands": {"allow": ["*"], "deny": ["rm *"], "confirm": []},
            }
        ),
    )
    done = await run(
        ctx,
        "karyi",
        call(0, "command", command="read -r line; echo got $line", timeout=0.3),
        call(1, "input", text="y\\nrm -rf ~\\n"),
        call(2, "input", text="fine\\n"),
    )
    assert done[1].result.error is not None and done[1].result.error.code == "permission_denied"
    assert done[1].result.llm_content.startswith("typed text: `rm -rf ~` matches the deny rule")
    assert done[2].result.llm_content.startswith("got fine")


async def test_a_tool_denied_in_settings_stays_denied_whatever_the_rules(sctx: ToolContext) -> None:
    ctx = dataclasses.replace(
        sctx,
        settings=settings(
            permissions={
                "tools": {"command": "deny"},
                "commands": {"allow": ["*"], "deny": [], "confirm": []},
            }
        ),
    )
    [done] = await run(ctx, "karyi", call(0, "command", command="ls"))
    assert done.result.error is not None and done.result.error.code == "permission_denied"


async def test_terminal_tools_work_in_order(sctx: ToolContext) -> None:
    done = await run(
        sctx,
        "karyi",
        call(0, "command", command="read -p 'password: ' -s pw; echo; echo ${#pw} chars"),
        call(1, "input", text="$KARYI{TOKEN}\\n"),
        call(2, "command", command="sleep 100", timeout=0.3),
        call(3, "ctrl", key="C"),
    )
    assert [d.result.status for d in done] == ["running", "", "running", ""]
    assert done[0].result.llm_content.startswith("password: \n[still running, waiting for input")
    assert done[1].result.llm_content == f"\n{len(SECRET)} chars\n[exit code 0 · cwd .]"
    assert done[3].result.data["exit_code"] == 130


async def test_input_and_ctrl_parameters() -> None:
    assert unescape("y\\n\\t\\x41\\\\n\\q") == "y\n\tA\\n\\q"
    assert [control_byte(k) for k in ("c", "C", "^d", "ctrl-z", "\\", "[", "1")] == [
        3,
        3,
        4,
        26,
        28,
        27,
        None,
    ]


async def test_input_when_nothing_runs_is_refused(sctx: ToolContext) -> None:
    [done] = await run(sctx, "karyi", call(0, "input", text="rm -rf ~\\n"))
    assert done.result.error is not None and done.result.error.code == "tool_conflict"
    [done] = await run(sctx, "karyi", call(0, "ctrl", key="1"))
    assert done.result.llm_content.startswith("ctrl: key: '1' is not a control key")


async def test_vecli_shell_layout(sctx: ToolContext) -> None:
    [done] = await run(
        sctx,
        "vecli",
        call(0, "shell", command="pwd; sleep 100 &", description="where", directory="src"),
    )
    lines = done.result.llm_content.splitlines()
    assert lines[0] == "Command: pwd; sleep 100 &"
    assert lines[1] == "Directory: src"
    assert lines[2] == f"Output: {sctx.workspace.root}/src"
    assert lines[3:6] == ["Error: (none)", "Exit Code: 0", "Signal: (none)"]
    assert lines[6].startswith("Background PIDs: ") and lines[6].endswith(
        "(stopped when the command ended)"
    )


async def test_gateway_shell_is_disabled_unless_enabled(sctx: ToolContext) -> None:
    [done] = await run(sctx, "gateway", call(0, "shell", command="pwd"))
    assert done.result.error is not None and done.result.error.code == "permission_denied"
    tool = kit("gateway").get("shell")
    assert tool is not None
    direct = await tool.run({"command": "pwd"}, sctx)
    assert direct.error is not None and direct.error.code == "tool_disabled"


async def test_gateway_shell_shape(sctx: ToolContext) -> None:
    ctx = dataclasses.replace(sctx, settings=settings(gateway={"enableShell": True}))
    done = await run(
        ctx,
        "gateway",
        call(0, "shell", command="pwd", cwd="src", timeout_seconds=20),
        call(1, "shell", command="pwd", cwd="../.."),
        call(2, "shell", command="sleep 100", timeout_seconds=0.5),
    )
    assert done[0].result.data == {
        "ok": True,
        "command": "pwd",
        "exit_code": 0,
        "output": f"{ctx.workspace.root}/src\n",
        "text": f"{ctx.workspace.root}/src\n[exit code 0]",
        "sandboxed": True,
    }
    assert done[1].result.error is not None and done[1].result.error.code == "tool_forbidden_path"
    assert done[2].result.error is not None and done[2].result.error.code == "timeout"
    assert done[2].result.data["ok"] is False


def test_allow_always_remembers_the_command_line_not_the_tool() -> None:
    tool = kit("karyi").get("command")
    assert tool is not None
    assert tool.approval_key({"command": "npm   test"}) == "command:npm test"  # type: ignore[attr-defined]
