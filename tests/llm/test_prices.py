"""The price table: longest prefix wins, the provider prefix is optional, the user's
prices win, local servers and replays are free, an unknown model has no price."""

from __future__ import annotations

import pytest

from karyi.llm.prices import Price, parse_prices, price_of


def test_the_longest_matching_name_wins() -> None:
    assert price_of("openai:gpt-4.1-mini") == Price(0.40, 0.10, 1.60)
    assert price_of("openai:gpt-4.1") == Price(2.0, 0.50, 8.0)
    assert price_of("anthropic:claude-sonnet-4-5-20250929") == Price(3.0, 0.30, 15.0)


def test_user_prices_win_and_local_models_are_free() -> None:
    mine = parse_prices(
        {"gpt-4.1": {"input": 1, "output": 2}, "ollama:qwen": {"input": 3, "output": 4}}
    )
    assert price_of("openai:gpt-4.1-mini", mine) == Price(1.0, 1.0, 2.0)
    assert price_of("ollama:qwen2.5-coder:14b", mine) == Price(3.0, 3.0, 4.0)
    assert price_of("ollama:llama3") == Price(0.0, 0.0, 0.0)
    assert price_of("script:fix.yaml (replay)") == Price(0.0, 0.0, 0.0)
    assert price_of("openai:my-finetune") is None


def test_cached_input_is_part_of_the_input() -> None:
    price = Price(input=2.0, cached_input=0.5, output=8.0)
    assert price.cost(1_000_000, 100_000, cached_tokens=400_000) == pytest.approx(
        0.6 * 2.0 + 0.4 * 0.5 + 0.1 * 8.0
    )
