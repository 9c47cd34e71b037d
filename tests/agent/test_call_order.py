"""Which calls of a reply run side by side, and which wait: resources, programs, searches."""

from __future__ import annotations

import asyncio

from karyi.agent.review.approval import approve_all
from karyi.agent.turn.executor import CallBatch
from karyi.tools.context import ToolContext
from karyi.tools.registry import Toolkit
from tests.support.steps import GATES, LOG, STARTED, c


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
