"""The fault-injection suite uses the fixtures of tests/llm (providers) and tests/lsp."""

from __future__ import annotations

from tests.llm.conftest import make_provider, sleeps
from tests.lsp.conftest import lsp

__all__ = ["lsp", "make_provider", "sleeps"]
