"""A model that cannot be made yet (no key) stands in with the error that says why, and
`missing_key` tells a missing key from other configuration errors."""

from __future__ import annotations

import pytest

from karyi.llm.base import ProviderError, Request
from karyi.llm.factory import missing_key
from karyi.llm.unconfigured import UnconfiguredProvider, provider_or_unconfigured
from karyi.settings import Settings


def test_missing_key_names_what_to_set_only_when_a_key_is_needed() -> None:
    settings = Settings().with_values(model="anthropic:claude-x")
    assert missing_key(settings, {}) == "ANTHROPIC_API_KEY or KARYI_API_KEY"
    assert missing_key(settings, {"ANTHROPIC_API_KEY": "k"}) is None
    assert missing_key(settings.with_values(model="ollama:llama3"), {}) is None
    assert missing_key(settings.with_values(model="nosuch:x"), {}) is None
    local = settings.with_values(model="openai:m", baseUrl="http://127.0.0.1:9/v1")
    assert missing_key(local, {}) is None


async def test_the_stand_in_fails_every_call_with_the_reason() -> None:
    provider = provider_or_unconfigured(Settings().with_values(model="openai:gpt-4.1"), {})
    assert isinstance(provider, UnconfiguredProvider) and provider.key_missing
    assert provider.label == "openai:gpt-4.1" and provider.context_window > 0
    with pytest.raises(ProviderError) as raised:
        async for _ in provider.stream(Request(messages=[])):
            pass
    assert raised.value.kind == "config" and "OPENAI_API_KEY" in raised.value.message
    unknown = provider_or_unconfigured(Settings().with_values(model="nosuch:x"), {})
    assert isinstance(unknown, UnconfiguredProvider) and not unknown.key_missing
