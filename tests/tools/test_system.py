"""The system tools (agentxml): system info and the session's environment variables."""

from __future__ import annotations

import pytest

from karyi.tools.context import ToolContext
from tests.support.command_calls import call, run


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
