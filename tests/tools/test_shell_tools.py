"""The command, terminal, secret and system tools through the executor, as a model uses
them: permission rules, $KARYI{} substitution, redaction, seed result shapes."""

from __future__ import annotations

import base64
import copy
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from karyi.agent.approval import ApprovalRequest, Decision, approve_all
from karyi.agent.executor import Executed, run_calls
from karyi.protocol.calls import ToolCall
from karyi.secrets.request import ValueAnswer, ValueRequest
from karyi.secrets.store import SecretStore
from karyi.secrets.vault import Vault
from karyi.settings import DEFAULTS, Settings
from karyi.shell.manager import ShellManager
from karyi.tools.builtin.karyi_terminal import control_byte, unescape
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry
from karyi.tools.registry import Toolkit
from karyi.workspace.workspace import Workspace

SECRET = "s3cr3t-Value-42"


def settings(**changes: Any) -> Settings:
    values = copy.deepcopy(DEFAULTS)
    values["shell"]["inactivitySeconds"] = 30
    for key, value in changes.items():
        head, _, tail = key.partition(".")
        if tail:
            values[head][tail] = value
        else:
            values[head] = value
    return Settings(values)


@pytest.fixture
async def sctx(ws_root: Path, tmp_path: Path) -> AsyncIterator[ToolContext]:
    """A context with a shell manager and a vault holding TOKEN."""
    workspace = Workspace.open(ws_root)
    vault = Vault(SecretStore(tmp_path / "config"))
    vault.remember("TOKEN", SECRET)
    s = settings()
    shell = ShellManager(workspace, s, vault)
    yield ToolContext(workspace=workspace, settings=s, session_id="t", shell=shell, secrets=vault)
    await shell.close()


def kit(profile: str) -> Toolkit:
    return builtin_registry().toolkit(profile)


def call(index: int, tool: str, **params: Any) -> ToolCall:
    return ToolCall(index=index, name=tool, params=params, id=f"c{index}")


class Recorder:
    """An approver that records what it was asked and answers a fixed way."""

    def __init__(self, allow: bool) -> None:
        self.allow = allow
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return Decision(self.allow)


async def run(
    ctx: ToolContext, profile: str, *calls: ToolCall, approver: Any = None
) -> list[Executed]:
    return await run_calls(list(calls), kit(profile), ctx, approver or approve_all)


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


async def test_secrets_are_substituted_at_execution_and_redacted_from_results(
    sctx: ToolContext,
) -> None:
    script = "echo token=$KARYI{TOKEN}; printf %s $KARYI{TOKEN} | base64; printf %s x | base64"
    c = call(0, "command", command=script)
    [done] = await run(sctx, "karyi", c)
    text = done.result.llm_content
    assert SECRET not in text and base64.b64encode(SECRET.encode()).decode() not in text
    assert text.startswith("token=$KARYI{TOKEN}\n$KARYI{TOKEN}\n")
    assert c.params["command"] == script  # the call keeps its placeholder


async def test_an_unknown_variable_fails_before_approval_and_runs_nothing(
    sctx: ToolContext, ws_root: Path
) -> None:
    asked = Recorder(allow=True)
    [done] = await run(
        sctx, "karyi", call(0, "command", command="touch made $KARYI{NOPE}"), approver=asked
    )
    assert done.result.error is not None and done.result.error.code == "invalid_tool_input"
    assert "unknown secure variable $KARYI{NOPE}" in done.result.llm_content
    assert asked.asked == [] and not (ws_root / "made").exists()


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


async def test_get_value_asks_the_front_end_and_never_returns_the_value(
    sctx: ToolContext,
) -> None:
    requests: list[ValueRequest] = []

    async def ask(request: ValueRequest) -> ValueAnswer | None:
        requests.append(request)
        return ValueAnswer("npm-secret-9999", save=True, note="")

    ctx = dataclasses.replace(sctx, ask_value=ask)
    [done] = await run(
        ctx, "karyi", call(0, "get_value", key="NPM_TOKEN", reason="publish", note="npm token")
    )
    assert done.result.success and "npm-secret-9999" not in repr(done.result.to_dict())
    assert done.result.llm_content.startswith(
        "$KARYI{NPM_TOKEN} is ready (saved for later sessions (file))"
    )
    assert requests == [ValueRequest("NPM_TOKEN", "publish", "npm token", False, "t", "c0")]
    assert sctx.secrets is not None and sctx.secrets.lookup("NPM_TOKEN") == "npm-secret-9999"
    assert sctx.secrets.store is not None
    assert [(e.name, e.note) for e in sctx.secrets.store.entries()] == [("NPM_TOKEN", "npm token")]
    [done] = await run(ctx, "karyi", call(0, "command", command="echo $KARYI{NPM_TOKEN}"))
    assert done.result.llm_content.startswith("$KARYI{NPM_TOKEN}\n")


async def test_get_value_without_anyone_to_ask_or_when_refused(sctx: ToolContext) -> None:
    [done] = await run(sctx, "karyi", call(0, "get_value", key="X_KEY", reason="r"))
    assert done.result.llm_content == (
        "nobody can be asked for X_KEY here (no interactive user); the user can store it with "
        "`karyi var set X_KEY`, then $KARYI{X_KEY} works"
    )

    async def refuse(request: ValueRequest) -> ValueAnswer | None:
        return None

    [done] = await run(
        dataclasses.replace(sctx, ask_value=refuse),
        "karyi",
        call(0, "get_value", key="X_KEY", reason="r"),
    )
    assert done.result.error is not None and done.result.error.code == "rejected"


async def test_agentxml_run_command_and_environment_tools(sctx: ToolContext) -> None:
    done = await run(
        sctx,
        "agentxml",
        call(0, "set_env_variable", name="STAGE", value="prod-$KARYI{TOKEN}"),
        call(1, "run_command", command='echo "$STAGE"; exit 2'),
        call(2, "get_env_variable", name="STAGE"),
        call(3, "get_env_variable", name="GITHUB_TOKEN"),
        call(4, "get_system_info"),
    )
    assert done[1].result.data == "prod-$KARYI{TOKEN}\n[exit code 2]"
    assert done[2].result.data == "prod-$KARYI{TOKEN}"
    assert done[3].result.error is not None and done[3].result.error.code == "permission_denied"
    info = done[4].result.data
    assert {"os", "arch", "cpu_count", "python", "workspace", "shell"} <= set(info)


async def test_get_env_variable_masks_credential_looking_values(
    sctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://app:hunter2hunter2@db:5432/app")
    [done] = await run(sctx, "agentxml", call(0, "get_env_variable", name="DATABASE_URL"))
    assert done.result.data == "postgres://app:[redacted: looks like a credential]@db:5432/app"


async def test_set_env_variable_reaches_the_terminal(sctx: ToolContext) -> None:
    await run(sctx, "karyi", call(0, "command", command="true"))
    sctx.shell.set_env("t", "LATE", "yes")  # type: ignore[union-attr]
    [done] = await run(sctx, "karyi", call(0, "command", command="echo $LATE"))
    assert done.result.llm_content.startswith("yes\n")


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
    }
    assert done[1].result.error is not None and done[1].result.error.code == "tool_forbidden_path"
    assert done[2].result.error is not None and done[2].result.error.code == "timeout"
    assert done[2].result.data["ok"] is False


def test_allow_always_remembers_the_command_line_not_the_tool() -> None:
    tool = kit("karyi").get("command")
    assert tool is not None
    assert tool.approval_key({"command": "npm   test"}) == "command:npm test"  # type: ignore[attr-defined]
