"""Providers pointed at the fake model server, with retries that never wait."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from karyi.llm.anthropic_api import AnthropicProvider
from karyi.llm.base import Provider
from karyi.llm.endpoint import Endpoint
from karyi.llm.openai_compat import OpenAICompatProvider
from karyi.llm.retry import RetryPolicy
from tests.support.fake_model_server import FakeModelServer
from tests.support.streams import Sleeps


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
async def make_provider(
    fake_llm: FakeModelServer, sleeps: Sleeps
) -> AsyncIterator[Callable[..., Provider]]:
    """`make_provider(api, **endpoint_fields)` for `openai` or `anthropic`; closed after."""
    made: list[Provider] = []

    def make(api: str, *, max_attempts: int = 3, **fields: Any) -> Provider:
        policy = RetryPolicy(max_attempts=max_attempts, sleep=sleeps, random=lambda: 0.5)
        values: dict[str, Any] = {
            "model": "fake-model",
            "api_key": "sk-test",
            "label": f"{api}:fake-model",
            "base_url": fake_llm.openai_url if api == "openai" else fake_llm.anthropic_url,
            "key_hint": "KARYI_API_KEY",
            "retry": policy,
        }
        endpoint = Endpoint(**(values | fields))
        cls = OpenAICompatProvider if api == "openai" else AnthropicProvider
        provider: Provider = cls(endpoint)
        made.append(provider)
        return provider

    yield make
    for provider in made:
        await provider.aclose()
