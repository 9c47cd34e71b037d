"""The fault-injection suite uses the model-provider fixtures of tests/llm."""

from __future__ import annotations

from tests.llm.conftest import make_provider, sleeps

__all__ = ["make_provider", "sleeps"]
