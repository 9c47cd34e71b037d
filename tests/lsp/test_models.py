"""The model picker over the real server: `karyi/models` and `karyi/setModel`."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from karyi.core.plain_json import plain
from tests.lsp.conftest import Start, request
from tests.support.fake_model_server import FakeModelServer


async def test_the_picker_lists_and_switches_the_next_turns_model(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.listed_models = ["test-model", "llava:13b"]
    fake_llm.script("first", "second")
    client = await lsp(settings={"models": ["anthropic:claude-sonnet-4-5"]})
    first = plain(await request(client, "karyi/chat", {"message": "hi"}))
    sid = first["sessionId"]
    listed = plain(await request(client, "karyi/models", {"sessionId": sid}))
    assert listed["models"] == [
        {"id": "openai:test-model", "source": "settings"},
        {"id": "anthropic:claude-sonnet-4-5", "source": "settings"},
        {"id": "openai:llava:13b", "source": "server"},
    ]
    assert listed["model"] == "openai:test-model" and listed["note"] == ""
    assert listed["contextWindow"] == 128_000 and 0 < listed["contextUsed"] < 100
    switched = plain(
        await request(client, "karyi/setModel", {"sessionId": sid, "model": "openai:llava:13b"})
    )
    assert switched == {
        "sessionId": sid,
        "model": "openai:llava:13b",
        "contextWindow": 128_000,
        "contextUsed": listed["contextUsed"],
        "acceptsImages": True,
    }
    await request(client, "karyi/chat", {"sessionId": sid, "message": "again"})
    assert [r.body["model"] for r in fake_llm.requests] == ["test-model", "llava:13b"]
    state = plain(await request(client, "karyi/modelState", {"sessionId": sid}))
    assert state["model"] == "openai:llava:13b" and state["contextUsed"] > listed["contextUsed"]


async def test_a_bad_model_is_refused_and_changes_nothing(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    client = await lsp()
    with pytest.raises(JsonRpcInvalidParams, match="model"):
        await request(client, "karyi/setModel", {"model": "no-prefix"})
    with pytest.raises(JsonRpcException, match="unknown provider 'nope'"):
        await request(client, "karyi/setModel", {"model": "nope:x"})
    state = plain(await request(client, "karyi/models", {}))
    assert state["model"] == "openai:test-model" and state["sessionId"] is None
    assert plain(await request(client, "karyi/sessions", {}))["sessions"] == []
