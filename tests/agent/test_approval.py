"""Approving a reply's calls: permission order, one question at a time, what is asked."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from karyi.agent.review.approval import (
    ApprovalRequest,
    Decision,
    approve_all,
    deny_all,
    permission_for,
)
from karyi.agent.turn.executor import CallBatch, run_calls
from karyi.core.results import Permission, PermissionVerdict
from karyi.settings import load_settings
from karyi.tools.base import Confirmation
from karyi.tools.context import ToolContext
from karyi.tools.registry import Toolkit
from tests.support.harness import Harness
from tests.support.steps import Step, c


async def test_approvals_are_asked_one_at_a_time_in_call_order(
    kit: Toolkit, ctx: ToolContext
) -> None:
    asked: list[str] = []
    release = asyncio.Event()

    async def approver(req: ApprovalRequest) -> Decision:
        asked.append(req.call.params["key"])
        if req.call.params["key"] == "x":
            await release.wait()
        return Decision(req.call.params["key"] != "y", feedback="not that one")

    batch = CallBatch(kit, ctx, approver)
    batch.submit(c(0, "risky", key="x"))
    batch.submit(c(1, "risky", key="y"))
    auto = batch.submit(c(2, "step", key="z"))
    await auto  # auto calls do not wait for anyone's approval
    assert asked == ["x"]
    release.set()
    done = await batch.finish()
    assert asked == ["x", "y"]
    assert done[0].result.success
    assert done[1].result.error is not None and done[1].result.error.code == "rejected"
    assert done[1].result.llm_content == "the user rejected this risky call, saying: not that one"


async def test_approval_request_carries_description_and_confirmation(
    kit: Toolkit, ctx: ToolContext
) -> None:
    seen: list[ApprovalRequest] = []

    async def approver(req: ApprovalRequest) -> Decision:
        seen.append(req)
        return Decision(True)

    await run_calls([c(0, "risky", key="k")], kit, ctx, approver)
    assert seen[0].description == "risky(key='k')"
    assert seen[0].confirmation == Confirmation("command", "run k", details="rm -rf build")


async def test_settings_override_tool_permissions(kit: Toolkit, ctx: ToolContext) -> None:
    values = ctx.settings.values
    strict = ctx.settings.with_values(
        permissions={**values["permissions"], "tools": {"step": "deny", "risky": "auto"}}
    )
    ctx2 = ToolContext(ctx.workspace, strict)
    done = await run_calls([c(0, "step", key="a"), c(1, "risky", key="b")], kit, ctx2, deny_all)
    assert done[0].result.error is not None and done[0].result.error.code == "permission_denied"
    assert done[1].result.success  # auto now: deny_all was never consulted


class Judged(Step):
    """Judges its own calls: `ok` is cleared, anything else gets no verdict."""

    name = "judged"
    permission = Permission.CONFIRM

    def permission_for(self, params: Mapping[str, Any], ctx: ToolContext) -> PermissionVerdict:
        if params["key"] == "ok":
            return PermissionVerdict(Permission.AUTO, "cleared")
        return PermissionVerdict(None, "not cleared")


def test_permission_order(ctx: ToolContext) -> None:
    tool = Judged()
    assert permission_for(tool, {"key": "ok"}, ctx) == PermissionVerdict(Permission.AUTO, "cleared")
    assert permission_for(tool, {"key": "x"}, ctx) == PermissionVerdict(
        Permission.CONFIRM, "not cleared"
    )
    tools = {"tools": {"judged": "auto"}, "commands": {}}
    auto = dataclasses.replace(ctx, settings=ctx.settings.with_values(permissions=tools))
    assert permission_for(tool, {"key": "x"}, auto).permission is Permission.AUTO
    tools = {"tools": {"judged": "deny"}, "commands": {}}
    denied = dataclasses.replace(ctx, settings=ctx.settings.with_values(permissions=tools))
    assert permission_for(tool, {"key": "ok"}, denied) == PermissionVerdict(
        Permission.DENY, "judged is denied by the user's settings (permissions.tools)"
    )


async def test_an_always_answer_covers_a_later_call_already_waiting_to_ask(
    ctx: ToolContext,
) -> None:
    asked: list[str] = []

    async def approver(req: ApprovalRequest) -> Decision:
        asked.append(req.call.params["text"])
        await asyncio.sleep(0)  # the user answers later: the next call is waiting by now
        return Decision(True, remember="session")

    calls = '<tools><write_note text="a"/><write_note text="b"/></tools>'
    h = Harness(ctx, [calls, "done"], approver=approver)
    await h.agent.run("write")
    assert asked == ["a"]
    decisions = [c.decision for c in h.store.calls(h.conv.id)]
    assert decisions == ["allowed always (session)", "always (session)"]


async def test_a_tool_the_organisation_denies_is_refused_in_its_name(
    kit: Toolkit, ctx: ToolContext, tmp_path: Path
) -> None:
    user_file, managed_file = tmp_path / "user.json", tmp_path / "managed.json"
    user_file.write_text(json.dumps({"permissions": {"tools": {"step": "auto"}}}))
    managed_file.write_text(json.dumps({"permissions": {"tools": {"step": "deny"}}}))
    settings = load_settings(None, user_file=user_file, managed_file=managed_file, env={})
    done = await run_calls(
        [c(0, "step", key="a")], kit, dataclasses.replace(ctx, settings=settings), approve_all
    )
    error = done[0].result.error
    assert error is not None and error.code == "permission_denied"
    assert "refused by your organisation's settings (permissions.tools.step" in error.message
    assert str(managed_file) in error.message
