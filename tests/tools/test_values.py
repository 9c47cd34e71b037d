"""Secure values: get_value asks the user, $KARYI{} is substituted at execution and
redacted from results."""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path

from karyi.secrets.request import CannotAsk, ValueAnswer, ValueRequest
from karyi.tools.context import ToolContext
from tests.support.command_calls import SECRET, Recorder, call, run


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


async def test_a_plain_value_comes_back_to_the_model_and_is_not_kept(sctx: ToolContext) -> None:
    requests: list[ValueRequest] = []

    async def ask(request: ValueRequest) -> ValueAnswer | None:
        requests.append(request)
        return ValueAnswer("https://staging.example")

    ctx = dataclasses.replace(sctx, ask_value=ask)
    [done] = await run(
        ctx, "karyi", call(0, "get_value", key="STAGING_URL", reason="which?", secret=False)
    )
    assert done.result.llm_content == "STAGING_URL: https://staging.example"
    assert [r.secret for r in requests] == [False]
    assert sctx.secrets is not None and sctx.secrets.lookup("STAGING_URL") is None


async def test_a_front_end_that_cannot_ask_for_a_secret_says_how_to_store_it(
    sctx: ToolContext,
) -> None:
    async def forms_only(request: ValueRequest) -> ValueAnswer | None:
        raise CannotAsk(f"{request.key} is a secret and an editor form is not a place for one")

    ctx = dataclasses.replace(sctx, ask_value=forms_only)
    [done] = await run(ctx, "karyi", call(0, "get_value", key="TOKEN", reason="deploy"))
    assert done.result.llm_content == (
        "TOKEN is a secret and an editor form is not a place for one; the user can store it "
        "with `karyi var set TOKEN`, then $KARYI{TOKEN} works"
    )
