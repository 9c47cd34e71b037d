"""The agent end to end: the real provider SDKs over HTTP to the fake model server,
real tools on real files and a real terminal, in every dialect."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from karyi.agent.events import Event, Text
from karyi.agent.review.approval import ApprovalRequest, Approver, Decision, approve_all
from karyi.agent.runtime import Runtime
from karyi.agent.session.conversation import Conversation
from karyi.agent.turn.loop import Agent
from karyi.llm.factory import create_provider
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.procs import host_pid, running
from tests.support.replies import Call, Fault, Reply
from tests.support.waiting import eventually, pid_in


async def _no_wait(_seconds: float) -> None:
    return None


class Rig:
    """A runtime over `ws_root` whose model is the fake server."""

    def __init__(
        self,
        root: Path,
        fake: FakeModelServer,
        *,
        dialect: str,
        profile: str,
        api: str = "openai",
        **settings: Any,
    ) -> None:
        url = fake.openai_url if api == "openai" else fake.anthropic_url
        values = Settings().with_values(
            model=f"{api}:test-model",
            baseUrl=url,
            dialect=dialect,
            profile=profile,
            shell={**Settings().values["shell"], "inactivitySeconds": 5},
            **settings,
        )
        self.runtime = Runtime.open(root, values)
        self.fake = fake
        self.events: list[Event] = []

    def agent(self, approver: Approver = approve_all, conv: Conversation | None = None) -> Agent:
        provider = create_provider(self.runtime.settings, {}, sleep=_no_wait)
        agent = self.runtime.agent(
            conv or self.runtime.conversation(), approver=approver, provider=provider
        )
        agent.events.subscribe(self.events.append)
        return agent

    def sent(self, n: int) -> list[dict[str, Any]]:
        """The messages of the model request number `n`."""
        return list(self.fake.requests[n].body["messages"])

    def last_text(self, n: int) -> str:
        """Everything the model was sent in request `n` after its last reply, as text."""
        out = []
        for m in reversed(self.sent(n)):
            if m["role"] == "assistant":
                break
            content = m["content"]
            out.append(content if isinstance(content, str) else json.dumps(content))
        return "\n".join(reversed(out))


@pytest_asyncio.fixture
async def rigs(fake_llm: FakeModelServer, ws_root: Path) -> AsyncIterator[list[Rig]]:
    made: list[Rig] = []
    yield made
    for rig in made:
        await rig.runtime.aclose()


def rig(rigs: list[Rig], root: Path, fake: FakeModelServer, **kw: Any) -> Rig:
    made = Rig(root, fake, **kw)
    rigs.append(made)
    return made


FIX_FIND = "print('hi')"
FIX_REPLACE = "print('hello, world')"
RUN = "python3 src/main.py"


def replies(dialect: str) -> list[Reply]:
    """read -> edit + run -> answer, written in `dialect`."""
    if dialect == "toolsxml":
        return [
            Reply(text='Reading.\n<tools><read><file src="src/main.py"/></read></tools>'),
            Reply(
                text=f'<tools><edit><file src="src/main.py"><find>{FIX_FIND}</find>'
                f"<replace>{FIX_REPLACE}</replace></file></edit>"
                f"<command>{RUN}</command></tools>"
            ),
            Reply(text="Done: it prints hello, world."),
        ]
    if dialect in ("agentxml", "toolcall"):
        calls = [
            [("1", "read_file", {"filePath": "src/main.py"})],
            [
                (
                    "2",
                    "replace_file_content",
                    {"filePath": "src/main.py", "oldContent": FIX_FIND, "newContent": FIX_REPLACE},
                ),
                ("3", "run_command", {"command": RUN}),
            ],
        ]
        texts = []
        for group in calls:
            if dialect == "agentxml":
                body = [{"id": i, "name": n, "parameters": p} for i, n, p in group]
                texts.append(f"<thinking>next</thinking><tools>{json.dumps(body)}</tools>")
            else:
                texts.append(
                    "".join(
                        f"<tool_call><name>{n}</name><params>"
                        + "".join(f"<{k}><![CDATA[{v}]]></{k}>" for k, v in p.items())
                        + "</params></tool_call>"
                        for _, n, p in group
                    )
                )
        final = (
            "<final_answer>Done: it prints hello, world.</final_answer>"
            if dialect == "agentxml"
            else "Done: it prints hello, world."
        )
        return [Reply(text=texts[0]), Reply(text=texts[1]), Reply(text=final)]
    return [
        Reply(text="Reading.", calls=[Call("read_file", {"absolute_path": "src/main.py"})]),
        Reply(
            calls=[
                Call(
                    "edit",
                    {"file_path": "src/main.py", "old_string": FIX_FIND, "new_string": FIX_REPLACE},
                ),
                Call("shell", {"command": RUN}),
            ]
        ),
        Reply(text="Done: it prints hello, world."),
    ]


PROFILE = {"toolsxml": "karyi", "agentxml": "agentxml", "toolcall": "agentxml", "native": "vecli"}


@pytest.mark.parametrize("dialect", list(PROFILE))
async def test_read_edit_and_run_in_every_dialect(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path, dialect: str
) -> None:
    r = rig(rigs, ws_root, fake_llm, dialect=dialect, profile=PROFILE[dialect])
    fake_llm.script(*replies(dialect))
    result = await r.agent().run("make main.py greet the world")
    assert result.final_answer == "Done: it prints hello, world.", r.last_text(2)
    assert (ws_root / "src" / "main.py").read_text() == "print('hello, world')\n"
    assert "print('hi')" in r.last_text(1)  # the read reached the model
    assert "hello, world" in r.last_text(2)  # so did the command's output
    kinds = [e.kind for e in r.events]
    assert kinds.count("toolDone") == 3
    assert any(e.kind == "notice" and "checkpoint" in e.to_dict()["message"] for e in r.events)


async def test_native_over_the_anthropic_api(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    r = rig(rigs, ws_root, fake_llm, dialect="native", profile="vecli", api="anthropic")
    fake_llm.script(*replies("native"))
    result = await r.agent().run("make main.py greet the world")
    assert result.final_answer == "Done: it prints hello, world."
    assert (ws_root / "src" / "main.py").read_text() == "print('hello, world')\n"
    assert fake_llm.requests[0].api == "anthropic"


async def test_extended_thinking_with_tools_over_the_anthropic_api(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    """The fake server refuses, as the real API does, a tool-use reply sent back without
    its signed thinking block; the turn must get through, and so must a resumed session."""
    r = rig(
        rigs,
        ws_root,
        fake_llm,
        dialect="native",
        profile="vecli",
        api="anthropic",
        llm={**Settings().values["llm"], "thinkingBudget": 2048},
    )
    first, second, final = replies("native")
    fake_llm.script(
        Reply(thinking="I should read main.py first.", text=first.text, calls=first.calls),
        Reply(thinking="Now fix and run it.", calls=second.calls, cached_tokens=900),
        Reply(text=final.text, cached_tokens=1500),
    )
    agent = r.agent()
    result = await agent.run("make main.py greet the world")
    assert result.final_answer == "Done: it prints hello, world.", result
    assert all(q.body["thinking"]["budget_tokens"] == 2048 for q in fake_llm.requests)
    assert result.cached_tokens == 2400  # prompt-cache reads, summed over the turn's calls
    sent = r.sent(2)
    assert [b["type"] for b in sent[1]["content"]] == ["thinking", "text", "tool_use"]
    assert sent[3]["content"][0]["thinking"] == "Now fix and run it."
    thought = "".join(e.text for e in r.events if isinstance(e, Text) and e.channel == "thinking")
    assert thought == "I should read main.py first.Now fix and run it."  # shown as thinking

    # A session resumed from the store sends the same signed blocks back.
    assert r.runtime.store is not None
    resumed = Conversation.resume(r.runtime.store, agent.conversation.id)
    assert [m.reasoning for m in resumed.messages] == [
        m.reasoning for m in agent.conversation.messages
    ]


async def test_parallel_calls_in_one_reply(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    fake_llm.script(
        Reply(
            text='<tools><read><file src="README.md"/></read><read><file src="src/"/></read>'
            '<grep pattern="print" path="src"/></tools>'
        ),
        Reply(text="Found it."),
    )
    await r.agent().run("look around")
    results = r.last_text(1)
    assert all(f'<result index="{i}"' in results for i in range(3))
    assert "Hello." in results and "main.py" in results


def decider(answers: list[Decision]) -> tuple[Approver, list[ApprovalRequest]]:
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return answers[min(len(asked), len(answers)) - 1]

    return approver, asked


EDIT = (
    f'<tools><edit><file src="src/main.py"><find>{FIX_FIND}</find>'
    f"<replace>{FIX_REPLACE}</replace></file></edit></tools>"
)


@pytest.mark.parametrize(
    ("answer", "on_disk", "told"),
    [
        (Decision(True), "print('hello, world')\n", 'status="edited"'),
        (Decision(False), "print('hi')\n", "the user rejected this edit call"),
        (
            Decision(False, "keep the greeting short"),
            "print('hi')\n",
            "saying: keep the greeting short",
        ),
        (
            Decision(
                True,
                params={
                    "files": [
                        {
                            "src": "src/main.py",
                            "pairs": [{"find": FIX_FIND, "replace": "print('hey')"}],
                        }
                    ]
                },
                note="The user changed your edit before applying it.",
            ),
            "print('hey')\n",
            "The user changed your edit before applying it.",
        ),
    ],
    ids=["allow-once", "reject", "reject-with-feedback", "modified"],
)
async def test_permission_answers_reach_the_model(
    rigs: list[Rig],
    fake_llm: FakeModelServer,
    ws_root: Path,
    answer: Decision,
    on_disk: str,
    told: str,
) -> None:
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    fake_llm.script(Reply(text=EDIT), Reply(text="ok"))
    approver, asked = decider([answer])
    await r.agent(approver).run("edit")
    assert len(asked) == 1 and asked[0].confirmation is not None
    assert "+print('hello, world')" in (asked[0].confirmation.diff or "")
    assert (ws_root / "src" / "main.py").read_text() == on_disk
    assert told in r.last_text(1)


async def test_allow_always_is_not_asked_again(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    second = EDIT.replace(FIX_FIND, FIX_REPLACE).replace(
        f">{FIX_REPLACE}</replace>", ">print('again')</replace>", 1
    )
    fake_llm.script(Reply(text=EDIT), Reply(text=second), Reply(text="ok"))
    approver, asked = decider([Decision(True, remember="session")])
    await r.agent(approver).run("edit twice")
    assert len(asked) == 1
    assert (ws_root / "src" / "main.py").read_text() == "print('again')\n"


async def test_cancel_mid_tool_leaves_no_process(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path, mark: str
) -> None:
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    fake_llm.script(
        Reply(
            # raw text: `&` and `>` need no escaping inside <command>
            text="<tools><command>sleep 300 &\necho $! > sleep.pid; wait</command></tools>"
        )
    )
    agent = r.agent()
    pid_file = ws_root / "sleep.pid"
    task = asyncio.ensure_future(agent.run("wait"))
    # no event says "the pid file is written"
    written = await eventually(lambda: pid_in(pid_file), "the command writes its pid")
    pid = host_pid(written, mark)
    assert pid is not None
    agent.cancel()
    assert (await task).stop_reason == "cancelled"
    # the background job outlives the cancelled call (as in a terminal), not the session
    await r.runtime.shell.close()
    assert not running(pid)


async def test_rate_limit_is_retried_and_said(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    fake_llm.fail_next(Fault(status=429, retry_after="0"))
    fake_llm.script(Reply(text="Fine."))
    result = await r.agent().run("hi")
    assert result.final_answer == "Fine."
    assert any(e.kind == "notice" and e.to_dict()["topic"] == "retry" for e in r.events)


async def test_bad_key_ends_the_turn_clearly_and_keeps_the_session(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    fake_llm.fail_next(Fault(status=401, message="invalid api key"))
    agent = r.agent()
    result = await agent.run("hi")
    assert result.stop_reason == "error"
    error = next(e.to_dict() for e in r.events if e.kind == "error")
    assert error["errorKind"] == "auth" and "invalid api key" in error["message"]
    fake_llm.script(Reply(text="Back."))
    assert (await agent.run("again")).final_answer == "Back."


async def test_a_secret_never_reaches_the_model_or_the_session_file(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    secret = "s3cr3t-v4lue-2026"
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    r.runtime.vault.remember("API_TOKEN", secret)
    fake_llm.script(
        Reply(
            text="<tools><command>echo token=$KARYI{API_TOKEN}; "
            "printf %s $KARYI{API_TOKEN} | base64</command></tools>"
        ),
        Reply(text="Checked."),
    )
    await r.agent().run("check the token")
    sent = json.dumps(fake_llm.requests[1].body)
    encoded = base64.b64encode(secret.encode()).decode()
    assert "token=$KARYI{API_TOKEN}" in r.last_text(1)
    assert secret not in sent and encoded not in sent
    r.runtime.store.close()
    for db in (ws_root / ".karyi").glob("sessions.db*"):
        data = db.read_bytes()
        assert secret.encode() not in data and encoded.encode() not in data, db.name
