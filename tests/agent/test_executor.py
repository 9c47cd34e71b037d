"""Running a reply's calls: checks, results in call order, cancelling (the order they run
in: test_call_order.py)."""

from __future__ import annotations

import asyncio

import pytest

from karyi.agent.review.approval import approve_all
from karyi.agent.turn.executor import CallBatch, run_calls, with_note
from karyi.core.results import ToolResult
from karyi.protocol.calls import ToolCall
from karyi.tools.context import ToolContext
from karyi.tools.deferred import deferred
from karyi.tools.registry import Toolkit
from tests.support.steps import GATES, LOG, STARTED, c


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


def test_the_users_note_goes_first_wherever_a_dialect_shows_the_model_text() -> None:
    sentence = ToolResult.ok("Replaced 1 occurrence", data="Replaced 1 occurrence")
    noted = with_note(sentence, "The user said: fine")
    assert (noted.llm_content, noted.data) == (
        "The user said: fine\nReplaced 1 occurrence",
        "The user said: fine\nReplaced 1 occurrence",
    )
    shaped = with_note(ToolResult.ok("ok", data={"ok": True}), "The user said: fine")
    assert shaped.data == {"note": "The user said: fine", "ok": True}
    assert with_note(ToolResult.ok("ok"), "n").data is None


async def test_a_tool_that_cannot_be_loaded_fails_its_call_not_the_turn(
    ctx: ToolContext,
) -> None:
    """A built-in tool whose module is missing (a broken installation) answers its call
    with `tool_error`; the other calls of the reply still run."""
    info = deferred("system:GetSystemInfo")
    broken = type("Broken", (type(info),), {"place": "gone:Nope"})()
    kit = Toolkit("t", {"get_system_info": broken, "info": info})
    done = await run_calls([c(0, "get_system_info"), c(1, "info")], kit, ctx, approve_all)
    result = done[0].result
    assert not result.success
    assert result.error is not None and result.error.code == "tool_error"
    assert "get_system_info could not be loaded" in result.error.message
    assert done[1].result.success
