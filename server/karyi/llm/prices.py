"""What model calls cost: a per-model price table in USD per million tokens (input,
cached input, output), overridable by settings `prices` (docs/workflow.md#cost).

A model is looked up by its name without the provider prefix (`gpt-4.1-mini`) or with it
(`openai:gpt-4.1-mini`); the longest matching prefix wins, so `gpt-4.1-mini` is not
priced as `gpt-4.1`. Local servers and replays cost nothing; an unknown model has no
price (None), and the front ends show tokens only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    cached_input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int, cached_tokens: int = 0) -> float:
        """The cost of a call; `cached_tokens` are part of `input_tokens`."""
        fresh = max(0, input_tokens - cached_tokens)
        total = fresh * self.input + cached_tokens * self.cached_input
        return (total + output_tokens * self.output) / 1_000_000


PRICES: dict[str, Price] = {
    # OpenAI
    "gpt-5": Price(1.25, 0.125, 10.0),
    "gpt-5-mini": Price(0.25, 0.025, 2.0),
    "gpt-5-nano": Price(0.05, 0.005, 0.40),
    "gpt-4.1": Price(2.0, 0.50, 8.0),
    "gpt-4.1-mini": Price(0.40, 0.10, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.025, 0.40),
    "gpt-4o": Price(2.50, 1.25, 10.0),
    "gpt-4o-mini": Price(0.15, 0.075, 0.60),
    "o3": Price(2.0, 0.50, 8.0),
    "o4-mini": Price(1.10, 0.275, 4.40),
    # Anthropic (cached input: cache reads)
    "claude-opus-4-5": Price(5.0, 0.50, 25.0),
    "claude-opus-4": Price(15.0, 1.50, 75.0),
    "claude-sonnet-4": Price(3.0, 0.30, 15.0),
    "claude-3-7-sonnet": Price(3.0, 0.30, 15.0),
    "claude-haiku-4-5": Price(1.0, 0.10, 5.0),
    "claude-3-5-haiku": Price(0.80, 0.08, 4.0),
    # DeepSeek
    "deepseek-chat": Price(0.28, 0.028, 0.42),
    "deepseek-reasoner": Price(0.28, 0.028, 0.42),
    # Google
    "gemini-2.5-pro": Price(1.25, 0.31, 10.0),
    "gemini-2.5-flash": Price(0.30, 0.075, 2.50),
}
"""List prices of the common models (USD per million tokens, standard tier)."""

FREE_PROVIDERS = frozenset({"ollama", "vllm", "llamacpp", "lmstudio", "script"})
"""Providers that run on the user's own machine, or replay: they cost nothing."""


def parse_prices(raw: Mapping[str, Any]) -> dict[str, Price]:
    """Settings `prices` (`{model: {input, cachedInput, output}}`) as Prices; a missing
    `cachedInput` is the input price."""
    return {
        name: Price(float(p["input"]), float(p.get("cachedInput", p["input"])), float(p["output"]))
        for name, p in raw.items()
    }


def price_of(model: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The price of `model` (`provider:name`, as a provider's label), or None unknown."""
    provider, _, name = model.partition(":")
    name = name.split(" ", 1)[0] if name else provider
    for table in (overrides or {}, PRICES):
        for key in (model, name):
            found = [k for k in table if key.startswith(k)]
            if found:
                return table[max(found, key=len)]
        if provider in FREE_PROVIDERS:  # the user's own prices win, then "free"
            return Price(0.0, 0.0, 0.0)
    return None
