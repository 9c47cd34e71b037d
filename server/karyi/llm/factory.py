"""`create_provider`: from `settings.model` (`provider:name`) to a ready `Provider`.

The prefix picks the family (families.py): `openai:` and every OpenAI-compatible alias
(`deepseek:`, `ark:`, `ollama:`, `vllm:`, `llamacpp:`, ...) go through the `openai` SDK,
`anthropic:` through the `anthropic` SDK, `script:FILE` replays a file. `baseUrl`
overrides the family's default URL; the key comes from `settings.api_key(env)`. What
cannot work (an unknown prefix, a missing key, Azure without a URL) is a `config`
ProviderError that says what to set. The SDKs are imported only when needed, so
commands that never call a model do not pay for loading them.
"""

from __future__ import annotations

import asyncio
import difflib
import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Protocol

from karyi.core.collector import fewer_collections
from karyi.llm.base import Provider, ProviderError
from karyi.llm.endpoint import Endpoint
from karyi.llm.families import FAMILIES, Family, context_window, family
from karyi.llm.retry import RetryPolicy, Sleep
from karyi.llm.vision import accepts_images


class LlmOptions(Protocol):
    """The `llm` settings the factory reads (`karyi.settings.sections.Llm` has them)."""

    @property
    def max_attempts(self) -> int: ...
    @property
    def max_retry_seconds(self) -> float: ...
    @property
    def context_window(self) -> int | None: ...
    @property
    def prompt_caching(self) -> bool: ...
    @property
    def thinking_budget(self) -> int | None: ...
    @property
    def images(self) -> bool | None: ...


class ProviderSettings(Protocol):
    """What the factory reads of the user's settings (`karyi.settings.Settings` has it).

    Settings sit above this layer (they know the providers' key variables from
    families.py), so the factory names only what it needs.
    """

    @property
    def model(self) -> str: ...
    @property
    def base_url(self) -> str | None: ...
    @property
    def api_key_env(self) -> str | None: ...
    @property
    def llm(self) -> LlmOptions: ...
    @property
    def llm_timeouts(self) -> tuple[float, float]: ...
    def api_key(self, env: Mapping[str, str] | None = None) -> str | None: ...


NO_KEY = "not-needed"
"""Sent as the key to servers that take none (the SDKs insist on a string)."""


def _family(settings: ProviderSettings) -> tuple[Family, str, str]:
    prefix, _, name = settings.model.partition(":")
    found = family(prefix)
    if found is None:
        close = difflib.get_close_matches(prefix.lower(), list(FAMILIES), n=1)
        hint = f"did you mean '{close[0]}:'? " if close else ""
        known = ", ".join(f"{n}:" for n in FAMILIES)
        raise ProviderError(
            "config",
            f"model {settings.model!r}: unknown provider {prefix!r}; {hint}known: {known} "
            "(any other OpenAI-compatible server: `openai:` with baseUrl)",
        )
    if not name:
        raise ProviderError("config", f"model {settings.model!r}: no model name after {prefix!r}")
    return found, prefix, name


def _key_hint(settings: ProviderSettings, fam: Family) -> str:
    named = settings.api_key_env
    if named:
        return f"{named} (named by the apiKeyEnv setting) or KARYI_API_KEY"
    if fam.key_env:
        return f"{fam.key_env} or KARYI_API_KEY"
    return "KARYI_API_KEY"


def _api_key(
    settings: ProviderSettings, fam: Family, env: Mapping[str, str], custom_url: bool
) -> str:
    key = settings.api_key(env) or (env.get(fam.key_env) if fam.key_env else None)
    if key:
        return key
    if fam.needs_key and not custom_url:
        raise ProviderError(
            "config",
            f"no API key for {settings.model}: set {_key_hint(settings, fam)} in the environment",
        )
    return NO_KEY


def missing_key(settings: ProviderSettings, env: Mapping[str, str] | None = None) -> str | None:
    """What to set when the model needs an API key and none is there, else None (a
    key is there, the model takes none, or the model is unusable for another reason)."""
    env = os.environ if env is None else env
    try:
        fam, _, _ = _family(settings)
    except ProviderError:
        return None
    custom_url = bool(settings.base_url) and settings.base_url != fam.base_url
    if fam.api == "script" or not fam.needs_key or custom_url:
        return None
    if settings.api_key(env) or (env.get(fam.key_env) if fam.key_env else None):
        return None
    return _key_hint(settings, fam)


def endpoint_for(settings: ProviderSettings, env: Mapping[str, str] | None = None) -> Endpoint:
    """The endpoint an OpenAI-compatible or Anthropic model is reached at."""
    env = os.environ if env is None else env
    fam, prefix, name = _family(settings)
    base_url = settings.base_url or fam.base_url
    if fam.needs_base_url and not settings.base_url:
        raise ProviderError(
            "config",
            f"model {settings.model!r}: {prefix}: needs baseUrl (for Azure OpenAI, e.g. "
            "https://RESOURCE.openai.azure.com/openai/v1/)",
        )
    custom_url = bool(settings.base_url) and settings.base_url != fam.base_url
    key = _api_key(settings, fam, env, custom_url)
    connect, read = settings.llm_timeouts
    headers = {fam.key_header: key} if fam.key_header else {}
    return Endpoint(
        model=name,
        api_key=key,
        label=f"{prefix}:{name}",
        base_url=base_url,
        key_hint=_key_hint(settings, fam),
        connect_timeout=connect,
        read_timeout=read,
        retry=RetryPolicy(
            max_attempts=settings.llm.max_attempts, max_total=settings.llm.max_retry_seconds
        ),
        context_window=settings.llm.context_window or context_window(name),
        headers=headers,
        max_tokens_field=fam.max_tokens_field,
        thinking_budget=settings.llm.thinking_budget or 0,
        prompt_caching=settings.llm.prompt_caching,
        images=accepts_images(name, settings.llm.images),
    )


def import_sdk(settings: ProviderSettings) -> None:
    """Import the SDK `settings.model` needs, without making a provider.

    A front end calls it in a thread once it is up, so that the first session it opens
    does not wait the second or so the SDK takes to import. Whatever cannot work is left
    for `create_provider` to say.
    """
    try:
        fam, _, _ = _family(settings)
    except ProviderError:
        return
    with fewer_collections():
        if fam.api == "anthropic":
            import karyi.llm.anthropic_api
        elif fam.api != "script":
            import karyi.llm.openai_compat  # noqa: F401


def create_provider(
    settings: ProviderSettings, env: Mapping[str, str] | None = None, *, sleep: Sleep | None = None
) -> Provider:
    """The provider `settings.model` names. `sleep` replaces the waits between retries
    (and the script's pacing): tests pass one that returns at once."""
    fam, _, name = _family(settings)
    if fam.api == "script":
        from karyi.llm.script import ScriptProvider, load_script

        script = ScriptProvider(load_script(name), sleep=sleep or asyncio.sleep)
        if settings.llm.context_window:
            script.context_window = settings.llm.context_window
        return script
    endpoint = endpoint_for(settings, env)
    if sleep is not None:
        endpoint = replace(endpoint, retry=replace(endpoint.retry, sleep=sleep))
    with fewer_collections():  # the SDK the first provider imports lives as long as the process
        if fam.api == "anthropic":
            from karyi.llm.anthropic_api import AnthropicProvider

            return AnthropicProvider(endpoint)
        from karyi.llm.openai_compat import OpenAICompatProvider

        return OpenAICompatProvider(endpoint)
