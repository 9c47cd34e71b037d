"""A session's model choice (AgentHost.set_model) and the picker's list (ModelCatalog)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from karyi.agent.host import AgentHost
from karyi.agent.models import ModelCatalog, ModelEntry
from karyi.agent.runtime import Runtime
from karyi.llm.base import ProviderError
from karyi.llm.endpoint import Endpoint
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer


def _settings(fake: FakeModelServer) -> Settings:
    return Settings().with_values(
        model="openai:gpt-4.1", models=["anthropic:claude-sonnet-4-5"], baseUrl=fake.openai_url
    )


async def test_the_next_turn_uses_the_chosen_model_and_a_reload_keeps_it(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    fake_llm.script("one", "two", "three")
    host = AgentHost(Runtime.open(ws_root, _settings(fake_llm)))
    try:
        live, _ = await host.chat(None, "hi")
        await host.set_model(live.id, "openai:qwen-vl-max")
        await host.chat(live.id, "again")
        sid = live.id
    finally:
        await host.close()
    assert [r.body["model"] for r in fake_llm.requests] == ["gpt-4.1", "qwen-vl-max"]
    again = AgentHost(Runtime.open(ws_root, _settings(fake_llm)))
    try:
        live, _ = await again.chat(sid, "and again")
        assert live.agent.provider.label == "openai:qwen-vl-max"
    finally:
        await again.close()
    assert fake_llm.requests[2].body["model"] == "qwen-vl-max"


async def test_an_unusable_model_changes_nothing(ws_root: Path, fake_llm: FakeModelServer) -> None:
    host = AgentHost(Runtime.open(ws_root, _settings(fake_llm)))
    try:
        live = host.session(None)
        with pytest.raises(ProviderError, match="unknown provider 'nope'"):
            await host.set_model(live.id, "nope:model")
        assert live.agent.provider.label == "openai:gpt-4.1"
        assert live.conversation.model_choices == {}
    finally:
        await host.close()


async def test_context_use_is_the_conversation_against_the_window(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    fake_llm.script("ok")
    host = AgentHost(Runtime.open(ws_root, _settings(fake_llm)))
    try:
        live, _ = await host.chat(None, "x" * 4000)
        used, window = host.context_use(live)
        assert window == 1_047_576 and 1000 < used < 1100
    finally:
        await host.close()


async def test_the_catalog_lists_settings_then_the_servers_models_once(
    fake_llm: FakeModelServer,
) -> None:
    fake_llm.listed_models = ["llama3.2-vision", "gpt-4.1"]
    calls: list[str] = []
    clock = [0.0]
    catalog = ModelCatalog(clock=lambda: clock[0])
    real = catalog.lister

    async def counted(endpoint: Endpoint) -> tuple[list[str], str]:
        calls.append(endpoint.base_url or "")
        return await real(endpoint)

    catalog.lister = counted
    configured = [
        ModelEntry("openai:gpt-4.1", "settings"),
        ModelEntry("anthropic:claude-sonnet-4-5", "settings"),
    ]
    assert catalog.known(_settings(fake_llm)) == (configured, False)  # the list is to read
    entries, note = await catalog.models(_settings(fake_llm))
    assert (entries, note) == (
        [
            ModelEntry("openai:gpt-4.1", "settings"),
            ModelEntry("anthropic:claude-sonnet-4-5", "settings"),
            ModelEntry("openai:llama3.2-vision", "server"),
        ],
        "",
    )
    assert catalog.known(_settings(fake_llm)) == (entries, True)
    await catalog.models(_settings(fake_llm))
    assert len(calls) == 1  # cached
    clock[0] = 10_000.0
    assert catalog.known(_settings(fake_llm)) == (configured, False)
    await catalog.models(_settings(fake_llm))
    assert len(calls) == 2


async def test_callers_at_once_share_one_request(fake_llm: FakeModelServer) -> None:
    calls: list[str] = []
    catalog = ModelCatalog()
    real = catalog.lister

    async def counted(endpoint: Endpoint) -> tuple[list[str], str]:
        calls.append(endpoint.base_url or "")
        return await real(endpoint)

    catalog.lister = counted
    lists = await asyncio.gather(*(catalog.models(_settings(fake_llm)) for _ in range(3)))
    assert len(calls) == 1 and all(entries == lists[0][0] for entries, _ in lists)
    assert ModelEntry("openai:fake-model", "server") in lists[0][0]


async def test_a_server_without_a_list_is_a_note_not_an_error() -> None:
    settings = Settings().with_values(model="openai:m", baseUrl="http://127.0.0.1:9/v1")
    catalog = ModelCatalog()
    entries, note = await catalog.models(settings)
    assert entries == [ModelEntry("openai:m", "settings")]
    assert catalog.known(settings) == (entries, True)  # the failure is cached too
    assert note.startswith("http://127.0.0.1:9/v1/models ")
