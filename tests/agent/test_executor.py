"""Running a reply's calls: checks, permissions, approval order, resource ordering."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from typing import Any

import pytest

from karyi.agent.executor import (
    ApprovalRequest,
    CallBatch,
    Decision,
    approve_all,
    deny_all,
    permission_for,
    run_calls,
)
from karyi.core.results import Permission, PermissionVerdict, ToolResult
from karyi.protocol.calls import ToolCall
from karyi.tools.base import Confirmation, Tool
from karyi.tools.context import ToolContext
from karyi.tools.registry import Toolkit, ToolRegistry

LOG: list[str] = []
GATES: dict[str, asyncio.Event] = {}
STARTED: dict[str, asyncio.Event] = {}


class Step(Tool):
    """Logs start/end; waits on GATES[key] when given; touches resource `res`."""

    name = "step"
    description = "test step"
    parameters = {
        "type": "object",
        "properties": {"key": {"type": "string"}, "res": {"type": "string"}},
        "required": ["key"],
        "additionalProperties": False,
    }

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        return frozenset([params["res"]]) if "res" in params else frozenset()

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        LOG.append(f"start {params['key']}")
        STARTED.setdefault(params["key"], asyncio.Event()).set()
        if params["key"] in GATES:
            await GATES[params["key"]].wait()
        LOG.append(f"end {params['key']}")
        return ToolResult.ok(params["key"])


class Program(Step):
    name = "program"
    runs_programs = True


class Change(Step):
    name = "change"
    changes_files = True


class Scan(Step):
    name = "scan"

    def scans_tree(self, params: Mapping[str, Any], ctx: ToolContext) -> bool:
        return True


class Risky(Step):
    name = "risky"
    permission = Permission.CONFIRM

    def confirmation(self, params: Mapping[str, Any], ctx: ToolContext) -> Confirmation:
        return Confirmation("command", f"run {params['key']}", details="rm -rf build")


@pytest.fixture(autouse=True)
def _reset() -> None:
    LOG.clear()
    GATES.clear()
    STARTED.clear()


@pytest.fixture
def kit() -> Toolkit:
    reg = ToolRegistry()
    reg.register("t", Step())
    reg.register("t", Risky())
    reg.register("t", Program())
    reg.register("t", Change())
    reg.register("t", Scan())
    return reg.toolkit("t")


def c(index: int, name: str, **params: Any) -> ToolCall:
    return ToolCall(index=index, name=name, params=params, id=f"id{index}")


async def test_results_come_back_in_call_order_and_failures_do_not_stop_others(
    kit: Toolkit, ctx: ToolContext
) -> None:
    calls = [
        c(0, "step", key="a"),
        ToolCall(1, "step", {}, "id1", error="unclosed <step>", error_code="malformed_call"),
        c(2, "nope"),
        c(3, "step", key=5),
        c(4, "step", key="e"),
    ]
    done = await run_calls(calls, kit, ctx, approve_all)
    summary = [
        (d.call.index, d.result.success, d.result.error.code if d.result.error else None)
        for d in done
    ]
    assert summary == [
        (0, True, None),
        (1, False, "malformed_call"),
        (2, False, "unknown_tool"),
        (3, False, "invalid_tool_input"),
        (4, True, None),
    ]
    assert (
        done[2].result.llm_content
        == "unknown tool 'nope'; available tools: step, risky, program, change, scan"
    )
    assert done[3].result.llm_content == "step: key: expected string, got integer 5"
    assert sorted(LOG) == ["end a", "end e", "start a", "start e"]


async def test_independent_calls_run_in_parallel(kit: Toolkit, ctx: ToolContext) -> None:
    GATES["a"] = asyncio.Event()
    batch = CallBatch(kit, ctx, approve_all)
    batch.submit(c(0, "step", key="a"))
    second = batch.submit(c(1, "step", key="b"))
    await second  # b finishes although a is still blocked
    assert LOG == ["start a", "start b", "end b"]
    GATES["a"].set()
    await batch.finish()


async def test_calls_sharing_a_resource_run_in_written_order(
    kit: Toolkit, ctx: ToolContext
) -> None:
    GATES["a"] = asyncio.Event()
    batch = CallBatch(kit, ctx, approve_all)
    batch.submit(c(0, "step", key="a", res="file:x"))
    batch.submit(c(1, "step", key="b", res="file:x"))
    other = batch.submit(c(2, "step", key="c", res="file:y"))
    await other
    assert "start b" not in LOG  # waits for a, which waits for its gate
    GATES["a"].set()
    await batch.finish()
    assert LOG.index("end a") < LOG.index("start b")


async def test_a_call_that_runs_programs_waits_for_every_earlier_call_and_holds_later_ones(
    kit: Toolkit, ctx: ToolContext
) -> None:
    GATES["edit"], GATES["test"] = asyncio.Event(), asyncio.Event()
    batch = CallBatch(kit, ctx, approve_all)
    batch.submit(c(0, "step", key="edit", res="file:src/x.py"))
    batch.submit(c(1, "step", key="other"))  # no resource: it runs at once
    batch.submit(c(2, "program", key="test", res="terminal:s1"))
    later = [batch.submit(c(3, "step", key="read", res="file:README.md"))]
    later.append(batch.submit(c(4, "step", key="grep")))
    await STARTED.setdefault("other", asyncio.Event()).wait()
    assert "start test" not in LOG  # the edit has not finished
    GATES["edit"].set()
    await STARTED.setdefault("test", asyncio.Event()).wait()
    assert not any(t.done() for t in later)  # nothing written after the program runs yet
    GATES["test"].set()
    await batch.finish()
    assert LOG.index("end edit") < LOG.index("start test")
    assert LOG.index("end test") < min(LOG.index("start read"), LOG.index("start grep"))


async def test_a_search_sees_the_changes_written_before_it_and_none_written_after(
    kit: Toolkit, ctx: ToolContext
) -> None:
    GATES["edit"], GATES["grep"] = asyncio.Event(), asyncio.Event()
    batch = CallBatch(kit, ctx, approve_all)
    batch.submit(c(0, "change", key="edit", res="file:src/a.py"))
    batch.submit(c(1, "step", key="read", res="file:README.md"))  # independent: runs now
    grep = batch.submit(c(2, "scan", key="grep"))
    after = batch.submit(c(3, "change", key="edit2", res="file:src/b.py"))
    await STARTED.setdefault("read", asyncio.Event()).wait()
    assert "start grep" not in LOG
    GATES["edit"].set()
    await STARTED.setdefault("grep", asyncio.Event()).wait()
    assert not after.done() and "start edit2" not in LOG
    GATES["grep"].set()
    await grep
    await batch.finish()
    assert LOG.index("end edit") < LOG.index("start grep") < LOG.index("end grep")
    assert LOG.index("end grep") < LOG.index("start edit2")


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


async def test_cancelling_the_batch_cancels_running_calls(kit: Toolkit, ctx: ToolContext) -> None:
    GATES["a"] = asyncio.Event()
    STARTED["a"] = asyncio.Event()
    batch = CallBatch(kit, ctx, approve_all)
    task = batch.submit(c(0, "step", key="a"))
    finishing = asyncio.ensure_future(batch.finish())
    await STARTED["a"].wait()
    finishing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await finishing
    result = task.result()
    assert result.result.error is not None and result.result.error.code == "cancelled"


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
