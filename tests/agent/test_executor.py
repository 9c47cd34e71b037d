"""Running a reply's calls: checks, results in call order, resource ordering, cancelling."""

from __future__ import annotations

import asyncio

import pytest

from karyi.agent.approval import approve_all
from karyi.agent.executor import CallBatch, run_calls
from karyi.protocol.calls import ToolCall
from karyi.tools.context import ToolContext
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
