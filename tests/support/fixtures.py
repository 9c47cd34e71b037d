"""Pytest fixtures over the test support (exposed to every test by tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .fake_model_server import FakeModelServer, serve


@pytest.fixture
def fake_llm() -> Iterator[FakeModelServer]:
    """A fake OpenAI/Anthropic server on 127.0.0.1: `.script(...)`, `.fail_next(...)`,
    `.requests`, `.openai_url`, `.anthropic_url`."""
    yield from serve()
