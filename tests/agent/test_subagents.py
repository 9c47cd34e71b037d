"""Subagents end to end: the parent's call_subagent runs another agent through the fake
model server, its steps arrive as nested events, its answer is the call's result."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from karyi.agent.events import Event, Subagent, ToolDone, ToolRunning
from karyi.agent.review.approval import ApprovalRequest, Approver, Decision, approve_all
from karyi.agent.runtime import Runtime
from karyi.agent.subagent_defs import definitions
from karyi.agent.subagents import MAX_DEPTH, Subagents
from karyi.agent.turn.loop import Agent
from karyi.llm.factory import create_provider
from karyi.settings import Settings
from karyi.tools.context import ToolContext
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


async def _no_wait(_seconds: float) -> None:
    return None


@pytest_asyncio.fixture
async def runtimes() -> AsyncIterator[list[Runtime]]:
    made: list[Runtime] = []
    yield made
    for runtime in made:
        await runtime.aclose()


def make(made: list[Runtime], root: Path, fake: FakeModelServer, **settings: Any) -> Runtime:
    values = Settings().with_values(
        model="openai:test-model", baseUrl=fake.openai_url, dialect="toolsxml", **settings
    )
    runtime = Runtime.open(root, values)
    made.append(runtime)
    return runtime


def agent(runtime: Runtime, events: list[Event], approver: Approver = approve_all) -> Agent:
    provider = create_provider(runtime.settings, {}, sleep=_no_wait)
    made = runtime.agent(runtime.conversation(), approver=approver, provider=provider)
    made.events.subscribe(events.append)
    return made


def system_of(fake: FakeModelServer, n: int) -> str:
    return str(fake.requests[n].body["messages"][0]["content"])


async def test_explore_answers_through_its_own_loop(
    runtimes: list[Runtime], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    runtime = make(runtimes, ws_root, fake_llm)
    fake_llm.script(
        Reply(
            text='<tools><call_subagent agent_name="explore" task="Where is hi printed?"/></tools>'
        ),
        Reply(text='<tools><grep pattern="print" /></tools>'),
        Reply(text="It is printed by src/main.py line 1."),
        Reply(text="explore says: src/main.py line 1."),
    )
    events: list[Event] = []
    result = await agent(runtime, events).run("where is hi printed?")
    assert result.final_answer == "explore says: src/main.py line 1."
    # the subagent had its own prompt and toolkit
    child_system = system_of(fake_llm, 1)
    assert child_system.startswith("You are explore, a read-only code explorer")
    assert "### grep" in child_system and "### edit" not in child_system
    assert "### call_subagent" in system_of(fake_llm, 0) and "explore:" in system_of(fake_llm, 0)
    assert fake_llm.requests[1].body["messages"][1]["content"] == "Where is hi printed?"
    # its grep result reached it, and its answer reached the parent
    assert "src/main.py" in json.dumps(fake_llm.requests[2].body["messages"][-1])
    assert "It is printed by src/main.py line 1." in json.dumps(fake_llm.requests[3].body)
    nested = [e for e in events if isinstance(e, Subagent)]
    assert {e.agent for e in nested} == {"explore"} and {e.call_id for e in nested} == {"call_1"}
    grep_done = [e.event for e in nested if isinstance(e.event, ToolDone)]
    assert [(d.call.name, d.call.id, d.result.success) for d in grep_done] == [
        ("grep", "call_1/call_1", True)
    ]
    as_json = nested[0].to_dict()
    assert as_json["type"] == "subagent" and as_json["callId"] == "call_1"
    assert as_json["event"]["type"] == "turnStarted"
    done = next(e for e in events if isinstance(e, ToolDone) and e.call.name == "call_subagent")
    assert done.result.data["calls"] == [
        {"name": "grep", "params": {"pattern": "print"}, "success": True}
    ]
    assert done.result.data["stop_reason"] == "end_turn"
    # not a session of its own
    assert len(runtime.store.all()) == 1


async def test_subagent_calls_ask_the_parents_approver(
    runtimes: list[Runtime], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    runner = {"description": "runs commands", "tools": ["vecli.shell"], "maxSteps": 3}
    # (sandboxed commands no rule judges would run without asking: this is about asking)
    shell = {**Settings().values["shell"], "sandbox": {"autoApprove": False}}
    runtime = make(runtimes, ws_root, fake_llm, agents={"runner": runner}, shell=shell)
    fake_llm.script(
        Reply(text='<tools><call_subagent agent_name="runner" task="say hi"/></tools>'),
        Reply(text="<tools><shell command='echo hi' /></tools>"),
        Reply(text="It said hi."),
        Reply(text="done"),
    )
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return Decision(request.call.name != "shell", feedback="not now")

    events: list[Event] = []
    result = await agent(runtime, events, approver).run("say hi through runner")
    assert result.final_answer == "done"
    assert [(a.call.name, a.call.id) for a in asked] == [("shell", "call_1/call_1")]
    rejected = json.dumps(fake_llm.requests[2].body["messages"][-1])
    assert "the user rejected this shell call, saying: not now" in rejected


async def test_cancelling_the_parent_cancels_the_subagent(
    runtimes: list[Runtime], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    runner = {"description": "runs commands", "tools": ["vecli.shell"]}
    runtime = make(runtimes, ws_root, fake_llm, agents={"runner": runner})
    fake_llm.script(
        Reply(text='<tools><call_subagent agent_name="runner" task="wait"/></tools>'),
        Reply(text="<tools><shell command='sleep 300' /></tools>"),
    )
    events: list[Event] = []
    running = asyncio.Event()

    def watch(event: Event) -> None:
        if isinstance(event, Subagent) and isinstance(event.event, ToolRunning):
            running.set()

    parent = agent(runtime, events)
    parent.events.subscribe(watch)
    task = asyncio.ensure_future(parent.run("wait through runner"))
    await asyncio.wait_for(running.wait(), 30)
    parent.cancel()
    result = await task
    assert result.stop_reason == "cancelled"
    done = [e.event for e in events if isinstance(e, Subagent) and isinstance(e.event, ToolDone)]
    assert done and done[0].result.error is not None
    assert done[0].result.error.code == "cancelled"


async def test_unknown_agents_and_the_depth_limit(
    runtimes: list[Runtime], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    runtime = make(runtimes, ws_root, fake_llm)
    tool = runtime.registry.find("research.call_subagent")
    provider = create_provider(runtime.settings, {}, sleep=_no_wait)
    conv = runtime.conversation()
    ctx = runtime.context(conv)
    ctx.subagents = Subagents(
        runtime, provider=provider, approver=approve_all, permissions=_memory(ws_root)
    )
    unknown = await tool.run({"agent_name": "nope", "task": "x"}, ctx)
    assert unknown.error is not None and unknown.error.message == (
        "agent_name: no subagent 'nope'; available: explore, search, crawl"
    )
    deep = ToolContext(
        ctx.workspace,
        ctx.settings,
        subagents=Subagents(
            runtime,
            provider=provider,
            approver=approve_all,
            permissions=_memory(ws_root),
            depth=MAX_DEPTH,
        ),
    )
    refused = await tool.run({"agent_name": "explore", "task": "x"}, deep)
    assert refused.error is not None and refused.error.message == (
        f"subagents may nest only {MAX_DEPTH} levels deep; do this task yourself"
    )
    blank = await tool.run({"agent_name": "explore", "task": "   "}, ctx)
    assert blank.error is not None and "task: expected a description" in blank.error.message


def _memory(root: Path) -> Any:
    from karyi.agent.review.permissions import PermissionMemory

    return PermissionMemory(root)


def test_settings_override_and_add_agents() -> None:
    settings = Settings().with_values(
        agents={
            "explore": {"model": "openai:small", "maxSteps": 5},
            "crawl": {"enabled": False},
            "reviewer": {"description": "reviews", "profile": "vecli", "instructions": "Review."},
        }
    )
    defs = definitions(settings)
    assert list(defs) == ["explore", "search", "reviewer"]
    assert defs["explore"].model == "openai:small" and defs["explore"].max_steps == 5
    assert defs["explore"].instructions.startswith("You are explore")
    assert defs["reviewer"].profile == "vecli" and defs["reviewer"].instructions == "Review."


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        (["vecli.nope"], "settings agents.bad: profile 'vecli' has no tool 'nope'"),
        (["read_file"], "settings agents.bad: 'read_file' exists in several profiles"),
        ([], "settings agents.bad: the agent has no tools (set `tools` or `profile`)"),
    ],
)
async def test_bad_agent_toolkits_are_clear_errors(
    runtimes: list[Runtime],
    fake_llm: FakeModelServer,
    ws_root: Path,
    tools: list[str],
    message: str,
) -> None:
    runtime = make(runtimes, ws_root, fake_llm, agents={"bad": {"tools": tools}})
    fake_llm.script(
        Reply(text='<tools><call_subagent agent_name="bad" task="x"/></tools>'),
        Reply(text="ok"),
    )
    events: list[Event] = []
    await agent(runtime, events).run("go")
    done = next(e for e in events if isinstance(e, ToolDone))
    assert done.result.error is not None and done.result.error.message.startswith(message)
