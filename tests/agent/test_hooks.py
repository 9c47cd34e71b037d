"""Hooks around a real turn: a beforeTool hook that exits 2 blocks a command and the
model's next request carries its words; afterTool output joins the result; userPrompt
adds to or stops the message; a failing hook is reported, never fatal; payloads arrive
as JSON on stdin and nothing secret leaves in an event."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest_asyncio

from karyi.agent.events import Event, Hook
from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

SECRET = "s3cr3t-Value-42"
RM = Reply(text="<tools><command>rm -rf build</command></tools>")
READ = Reply(text='<tools><read><file src="README.md"/></read></tools>')
Make = Callable[..., Runtime]


@pytest_asyncio.fixture
async def make(fake_llm: FakeModelServer, ws_root: Path) -> AsyncIterator[Make]:
    made: list[Runtime] = []

    def build(**hooks: Any) -> Runtime:
        settings = Settings().with_values(
            model="openai:test-model", baseUrl=fake_llm.openai_url, hooks=hooks
        )
        rt = Runtime.open(ws_root, settings)
        rt.vault.remember("TOKEN", SECRET)
        made.append(rt)
        return rt

    yield build
    for rt in made:
        await rt.aclose()


async def turn(rt: Runtime, text: str) -> tuple[Any, list[Event]]:
    agent = rt.agent(rt.conversation(), approver=approve_all)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    return await agent.run(text), seen


def last_sent(fake: FakeModelServer, n: int) -> str:
    return str(fake.requests[n].body["messages"][-1]["content"])


async def test_a_before_tool_hook_blocks_a_command_and_the_model_is_told(
    make: Make, fake_llm: FakeModelServer, ws_root: Path, tmp_path: Path
) -> None:
    payload = tmp_path / "payload.json"
    guard = f"cat > {payload}; echo 'rm is not allowed here: use git clean' >&2; exit 2"
    rt = make(beforeTool=[{"command": guard, "match": "command"}])
    fake_llm.script(RM, Reply(text="Understood."))
    result, seen = await turn(rt, "clean up")
    assert result.final_answer == "Understood."
    assert (ws_root / "build" / "out.txt").exists()
    told = last_sent(fake_llm, 1)
    assert "blocked by a beforeTool hook: rm is not allowed here: use git clean" in told
    sent = json.loads(payload.read_text())
    assert sent["event"] == "beforeTool" and sent["tool"] == "command"
    assert sent["params"] == {"command": "rm -rf build"} and sent["cwd"] == str(ws_root)
    (ran,) = [e for e in seen if isinstance(e, Hook)]
    assert (ran.event, ran.status, ran.exit_code) == ("beforeTool", "blocked", 2)


async def test_after_tool_output_joins_the_result_the_model_reads(
    make: Make, fake_llm: FakeModelServer
) -> None:
    rt = make(
        afterTool=[
            {"command": "echo 'formatted 1 file'", "match": "re*"},
            {"command": "echo never", "match": "command"},
        ]
    )
    fake_llm.script(READ, Reply(text="ok"))
    await turn(rt, "read it")
    assert "Hello.\n" in last_sent(fake_llm, 1)
    assert "[afterTool hook output]\nformatted 1 file" in last_sent(fake_llm, 1)
    assert "never" not in last_sent(fake_llm, 1)


async def test_a_failing_or_slow_hook_is_reported_and_the_call_runs(
    make: Make, fake_llm: FakeModelServer
) -> None:
    rt = make(
        beforeTool=[
            {"command": "echo broken >&2; exit 1"},
            {"command": "exec sleep 30", "timeout": 0.2},
        ]
    )
    fake_llm.script(READ, Reply(text="ok"))
    _, seen = await turn(rt, "read it")
    ran = [e for e in seen if isinstance(e, Hook)]
    assert [(e.status, e.exit_code, e.stderr) for e in ran] == [
        ("failed", 1, "broken"),
        ("failed", None, "did not finish within 0.2s and was stopped"),
    ]
    assert "Hello." in last_sent(fake_llm, 1)


async def test_user_prompt_hooks_add_context_or_stop_the_message(
    make: Make, fake_llm: FakeModelServer, tmp_path: Path
) -> None:
    rt = make(userPrompt=[{"command": "echo 'branch: main'"}])
    fake_llm.script(Reply(text="ok"))
    await turn(rt, "hi")
    assert last_sent(fake_llm, 0) == "hi\n\n[userPrompt hook output]\nbranch: main"

    stop = make(userPrompt=[{"command": "echo 'no work on Fridays' >&2; exit 2"}])
    result, seen = await turn(stop, "hi")
    assert result.stop_reason == "blocked" and len(fake_llm.requests) == 1
    assert any(
        getattr(e, "message", "") == "A userPrompt hook stopped this message: no work on Fridays"
        for e in seen
    )


async def test_turn_end_hooks_see_the_answer_and_secrets_never_leave(
    make: Make, fake_llm: FakeModelServer, tmp_path: Path
) -> None:
    payload = tmp_path / "end.json"
    rt = make(turnEnd=[{"command": f"cat > {payload}; echo 'token {SECRET}'"}])
    fake_llm.script(Reply(text=f"the token is {SECRET}"))
    _, seen = await turn(rt, "what is $KARYI{TOKEN}?")
    sent = json.loads(payload.read_text())
    assert sent["stopReason"] == "end_turn" and SECRET not in payload.read_text()
    (ran,) = [e for e in seen if isinstance(e, Hook)]
    assert ran.event == "turnEnd" and ran.stdout == "token $KARYI{TOKEN}"


async def test_after_tool_output_also_reaches_a_result_shown_by_its_data(ws_root: Path) -> None:
    from karyi.agent.turn.hooks import Hooks
    from karyi.core.results import ToolResult
    from karyi.protocol.calls import ToolCall

    settings = Settings().with_values(hooks={"afterTool": [{"command": "echo checked"}]})
    seen: list[Event] = []
    hooks = Hooks(settings, ws_root, seen.append)
    call = ToolCall(0, "get_file_info", {"filePath": "README.md"}, "1")
    result = await hooks.after_tool("s", call, ToolResult.ok("{}", data={"size": 3}))
    assert result.data == {"size": 3, "hookOutput": "checked"}
    assert result.llm_content == "{}\n\n[afterTool hook output]\nchecked"
