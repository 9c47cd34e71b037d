"""Plan mode over LSP: `karyi/setMode` switches a session, a plan turn refuses an edit,
and the act turn carries the plan as the user edited it."""

from __future__ import annotations

from pathlib import Path

from tests.lsp.conftest import Start, request
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

EDIT = (
    "<tools><edit><file src=\"src/main.py\"><find>print('hi')</find>"
    "<replace>print('hello')</replace></file></edit></tools>"
)


async def test_plan_then_act_over_lsp(lsp: Start, fake_llm: FakeModelServer, ws_root: Path) -> None:
    fake_llm.script(Reply(text=EDIT), Reply(text="1. say hello"), Reply(text="Done."))
    client = await lsp()
    switched = await request(client, "karyi/setMode", {"mode": "plan"})
    sid = switched.sessionId
    assert (switched.mode, switched.plan) == ("plan", "")
    first = await request(client, "karyi/chat", {"sessionId": sid, "message": "say hello"})
    assert first.finalAnswer == "1. say hello" and first.mode == "plan"
    assert (ws_root / "src/main.py").read_text() == "print('hi')\n"
    events = [u["event"] for u in client.updates]
    assert next(e for e in events if e["type"] == "turnStarted")["mode"] == "plan"
    done = next(e for e in events if e["type"] == "toolDone")
    assert done["decision"] == "denied"
    assert done["result"]["error"]["message"].startswith("edit is not available in plan mode")
    second = await request(
        client,
        "karyi/chat",
        {"sessionId": sid, "message": "go", "mode": "act", "plan": "1. say hello, world"},
    )
    assert second.mode == "act"
    assert fake_llm.requests[2].body["messages"][-1]["content"] == (
        "Carry out this plan, agreed in plan mode:\n\n1. say hello, world\n\ngo"
    )
    loaded = await request(client, "karyi/loadSession", {"sessionId": sid})
    assert loaded.mode == "act"
