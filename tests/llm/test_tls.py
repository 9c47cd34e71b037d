"""Model clients share one TLS context (llm/tls.py): one per session cost the language
server about 0.9 MB of OpenSSL memory for every session it ever opened."""

from __future__ import annotations

import ssl
from typing import Any

from karyi.llm.anthropic_api import AnthropicProvider
from karyi.llm.catalog import list_models
from karyi.llm.endpoint import Endpoint
from karyi.llm.openai_compat import OpenAICompatProvider
from karyi.llm.tls import shared_tls_context


def _tls_of(provider: Any) -> ssl.SSLContext:
    # The SDK client's httpx2 client, its transport's connection pool, the pool's context.
    return provider._client._client._transport._pool._ssl_context  # type: ignore[no-any-return]


def test_every_model_client_takes_the_one_shared_context() -> None:
    endpoint = Endpoint(model="m", api_key="k", label="x", base_url="https://example.invalid/v1")
    providers = [OpenAICompatProvider(endpoint) for _ in range(3)]
    providers += [AnthropicProvider(endpoint) for _ in range(2)]
    shared = shared_tls_context()
    assert all(_tls_of(p) is shared for p in providers)
    assert shared.verify_mode == ssl.CERT_REQUIRED and shared.check_hostname


def test_the_model_list_client_takes_it_too(monkeypatch: Any) -> None:
    """`GET /models` for the picker (llm/catalog.py) goes through the same helper."""
    import asyncio

    import openai

    seen: list[ssl.SSLContext] = []
    made = openai.DefaultAsyncHttpxClient

    def recording(**options: Any) -> Any:
        client = made(**options)
        seen.append(client._transport._pool._ssl_context)
        return client

    monkeypatch.setattr(openai, "DefaultAsyncHttpxClient", recording)
    endpoint = Endpoint(model="m", api_key="k", label="x", base_url="http://127.0.0.1:9/v1")
    asyncio.run(list_models(endpoint))
    assert seen == [shared_tls_context()]
