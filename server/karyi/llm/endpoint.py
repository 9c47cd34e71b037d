"""Where and how a provider reaches its model: the part of the settings a provider needs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from karyi.llm.retry import RetryPolicy


@dataclass(frozen=True)
class Endpoint:
    """One model behind one API, as the factory resolved it from the settings.

    `key_hint` names the variables that hold the key, so an auth failure can say
    which one to fix; `label` is what the user sees (`deepseek:deepseek-chat`).
    """

    model: str
    api_key: str = field(repr=False)
    label: str
    base_url: str | None = None
    key_hint: str = ""
    connect_timeout: float = 10.0
    read_timeout: float = 300.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    context_window: int = 128_000
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)  # may hold the key
    prompt_caching: bool = True
    """Anthropic: mark cache breakpoints so repeated prefixes are read from the cache."""
    thinking_budget: int = 0
    """Anthropic extended thinking: tokens the model may think for (0: off)."""
    images: bool = True
    """Whether the model takes pictures (llm/vision.py); if not, notes replace them."""
    max_tokens_field: str = "max_tokens"
    """OpenAI's own API wants `max_completion_tokens`; compatible servers `max_tokens`."""
