"""`create_provider`: each prefix, base URLs, keys, context windows, config errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from karyi.llm.anthropic_api import AnthropicProvider
from karyi.llm.base import Message, ProviderError, Request
from karyi.llm.factory import NO_KEY, create_provider, endpoint_for
from karyi.llm.families import context_window
from karyi.llm.openai_compat import OpenAICompatProvider
from karyi.llm.script import ScriptProvider
from karyi.settings import Settings, load_settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Fault
from tests.support.streams import Sleeps, collect, text_of


def settings(model: str, **values: object) -> Settings:
    return Settings().with_values(model=model, **values)


@pytest.mark.parametrize(
    ("model", "env", "base_url", "key"),
    [
        ("openai:gpt-4.1", {"OPENAI_API_KEY": "o"}, "https://api.openai.com/v1", "o"),
        ("deepseek:deepseek-chat", {"DEEPSEEK_API_KEY": "d"}, "https://api.deepseek.com", "d"),
        (
            "ark:doubao-seed-1-6",
            {"ARK_API_KEY": "a"},
            "https://ark.cn-beijing.volces.com/api/v3",
            "a",
        ),
        (
            "volcengine:doubao",
            {"ARK_API_KEY": "a"},
            "https://ark.cn-beijing.volces.com/api/v3",
            "a",
        ),
        ("ollama:qwen2.5-coder", {}, "http://localhost:11434/v1", NO_KEY),
        ("vllm:Qwen/Qwen3-8B", {}, "http://localhost:8000/v1", NO_KEY),
        ("llama.cpp:local", {}, "http://localhost:8080/v1", NO_KEY),
        ("lmstudio:m", {"KARYI_API_KEY": "k"}, "http://localhost:1234/v1", "k"),
    ],
)
def test_openai_compatible_prefixes(
    model: str, env: dict[str, str], base_url: str, key: str
) -> None:
    provider = create_provider(settings(model), env)
    assert isinstance(provider, OpenAICompatProvider)
    assert provider.label == model
    endpoint = endpoint_for(settings(model), env)
    assert (endpoint.base_url, endpoint.api_key, endpoint.model) == (
        base_url,
        key,
        model.partition(":")[2],
    )


def test_anthropic_prefix_and_its_key() -> None:
    provider = create_provider(settings("anthropic:claude-sonnet-4-5"), {"ANTHROPIC_API_KEY": "an"})
    assert isinstance(provider, AnthropicProvider)
    assert provider.label == "anthropic:claude-sonnet-4-5"
    assert provider.context_window == 200_000


def test_azure_needs_a_base_url_and_sends_the_key_as_api_key_too() -> None:
    with pytest.raises(ProviderError) as caught:
        create_provider(settings("azure:gpt-4o"), {"AZURE_OPENAI_API_KEY": "z"})
    assert "needs baseUrl" in caught.value.message
    url = "https://mine.openai.azure.com/openai/v1/"
    endpoint = endpoint_for(settings("azure:gpt-4o", baseUrl=url), {"AZURE_OPENAI_API_KEY": "z"})
    assert (endpoint.base_url, dict(endpoint.headers)) == (url, {"api-key": "z"})


@pytest.mark.parametrize(
    ("model", "values", "variable"),
    [
        ("openai:gpt-4.1", {}, "set OPENAI_API_KEY or KARYI_API_KEY"),
        ("anthropic:claude-x", {}, "set ANTHROPIC_API_KEY or KARYI_API_KEY"),
        ("deepseek:deepseek-chat", {}, "set DEEPSEEK_API_KEY or KARYI_API_KEY"),
        (
            "ark:doubao",
            {"apiKeyEnv": "MY_ARK_KEY"},
            "set MY_ARK_KEY (named by the apiKeyEnv setting) or KARYI_API_KEY",
        ),
    ],
)
def test_a_missing_key_names_the_variable_to_set(
    model: str, values: dict[str, object], variable: str
) -> None:
    with pytest.raises(ProviderError) as caught:
        create_provider(settings(model, **values), {})
    assert caught.value.kind == "config"
    assert caught.value.message == f"no API key for {model}: {variable} in the environment"


def test_a_custom_base_url_needs_no_key() -> None:
    custom = settings("openai:my-model", baseUrl="http://127.0.0.1:9000/v1")
    assert endpoint_for(custom, {}).api_key == NO_KEY


def test_unknown_prefix_suggests_the_closest() -> None:
    with pytest.raises(ProviderError) as caught:
        create_provider(settings("openia:gpt-4.1"), {})
    assert caught.value.kind == "config"
    assert "unknown provider 'openia'; did you mean 'openai:'?" in caught.value.message


def test_script_prefix_replays_the_file(tmp_path: Path) -> None:
    script = tmp_path / "demo.yaml"
    script.write_text("replies: [hi]\n")
    provider = create_provider(settings(f"script:{script}"), {})
    assert isinstance(provider, ScriptProvider)
    assert provider.label == f"script:{script} (replay)"
    with pytest.raises(ProviderError) as caught:
        create_provider(settings(f"script:{tmp_path / 'missing.yaml'}"), {})
    assert caught.value.kind == "config"


def test_timeouts_attempts_and_context_window_come_from_settings(tmp_path: Path) -> None:
    user = tmp_path / "settings.json"
    user.write_text(
        '{"llm": {"connectTimeoutSeconds": 3, "readTimeoutSeconds": 45, "maxAttempts": 2,'
        ' "contextWindow": 8192}}'
    )
    loaded = load_settings(None, user_file=user, env={"KARYI_MODEL": "ollama:llama3.1"})
    assert loaded.warnings == ()
    endpoint = endpoint_for(loaded, {})
    assert (endpoint.connect_timeout, endpoint.read_timeout) == (3, 45)
    assert (endpoint.retry.max_attempts, endpoint.context_window) == (2, 8192)


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("gpt-4.1-mini", 1_047_576),
        ("gpt-4o", 128_000),
        ("o3-mini", 200_000),
        ("claude-opus-4-1", 200_000),
        ("deepseek-ai/DeepSeek-V3", 128_000),
        ("gemini-2.5-pro", 1_048_576),
        ("some-local-model", 128_000),
    ],
)
def test_context_window_per_model_family(model: str, window: int) -> None:
    assert context_window(model) == window


async def test_a_created_provider_talks_to_the_configured_server(
    fake_llm: FakeModelServer,
) -> None:
    fake_llm.script("hello from the fake")
    local = settings("vllm:fake-model", baseUrl=fake_llm.openai_url)
    provider = create_provider(local, {})
    try:
        events = await collect(provider, Request([Message("user", "hi")]))
    finally:
        await provider.aclose()
    assert text_of(events) == "hello from the fake"
    assert fake_llm.requests[0].headers["authorization"] == f"Bearer {NO_KEY}"


def test_the_key_is_not_in_the_endpoints_repr() -> None:
    url = "https://mine.openai.azure.com/openai/v1/"
    endpoint = endpoint_for(settings("azure:gpt-4o", baseUrl=url), {"KARYI_API_KEY": "sk-secret"})
    assert endpoint.api_key == "sk-secret"
    assert "sk-secret" not in repr(endpoint)


async def test_an_injected_sleep_reaches_the_retries(fake_llm: FakeModelServer) -> None:
    fake_llm.script("after a retry")
    fake_llm.fail_next(Fault(status=503))
    sleeps = Sleeps()
    provider = create_provider(
        settings("openai:fake-model", baseUrl=fake_llm.openai_url), {}, sleep=sleeps
    )
    try:
        events = await collect(provider, Request([Message("user", "hi")]))
    finally:
        await provider.aclose()
    assert text_of(events) == "after a retry"
    assert len(sleeps.delays) == 1


@pytest.mark.parametrize(
    ("model", "imported", "not_imported"),
    [
        ("anthropic:claude-sonnet-4-5", "anthropic", "openai"),
        ("deepseek:deepseek-chat", "openai", "anthropic"),
        ("script:replies.json", None, "openai"),
        ("nosuchprovider:x", None, "openai"),
    ],
)
def test_import_sdk_loads_only_the_sdk_the_model_needs(
    model: str, imported: str | None, not_imported: str
) -> None:
    """What a front end warms in a thread: the one SDK, and nothing for what cannot work."""
    code = (
        "import sys\n"
        "from karyi.llm.factory import import_sdk\n"
        "from karyi.settings import Settings\n"
        f"import_sdk(Settings().with_values(model={model!r}))\n"
        "print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == repr([imported] if imported else [])
    assert not_imported not in out
